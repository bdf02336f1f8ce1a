#include "ops/random.h"

#include <limits>

#include "core/errors.h"
#include "cpu/random.h"
#include "cuda/random.h"

namespace genesis::ops {

namespace {

Tensor fill(const Shape& sizes, ScalarType dtype, Device device, philox::Kind kind, int64_t low,
            uint64_t range, const char* op, Generator* gen) {
  checked_numel(sizes, op);
  // Allocate first: a call that fails to allocate leaves the generator where it was.
  Tensor out = Tensor::empty(sizes, dtype, device);
  Generator& g = generator_or_default(gen);
  if (out.is_cuda()) {
    cuda::random_fill(out, kind, cuda_counters(g, out.device().index, out.numel()), low, range);
  } else {
    Counters c = g.reserve(out.numel());
    cpu::random_fill(out, kind, c.seed, c.offset, low, range);
  }
  return out;
}

void check_floating(ScalarType dtype, const char* op) {
  GENESIS_CHECK_TYPE(is_floating_point(dtype), op, "expected a floating point dtype, got ",
                     scalar_type_name(dtype));
}

// The integers a dtype holds exactly: its range, or +-2^digits for floats.
void int_limits(ScalarType dtype, int64_t& lo, int64_t& hi) {
  auto both = [&](int64_t a, int64_t b) { lo = a, hi = b; };
  switch (dtype) {
    case ScalarType::UInt8:
      return both(0, 255);
    case ScalarType::Int8:
      return both(-128, 127);
    case ScalarType::Int16:
      return both(-32768, 32767);
    case ScalarType::Int32:
      return both(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
    case ScalarType::Float16:
      return both(-(1ll << 11), 1ll << 11);
    case ScalarType::BFloat16:
      return both(-(1ll << 8), 1ll << 8);
    case ScalarType::Float32:
      return both(-(1ll << 24), 1ll << 24);
    case ScalarType::Float64:
      return both(-(1ll << 53), 1ll << 53);
    default:
      return both(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  }
}

}  // namespace

void manual_seed(uint64_t seed) { default_generator()->manual_seed(seed); }

uint64_t initial_seed() { return default_generator()->initial_seed(); }

uint64_t seed() { return default_generator()->seed(); }

Tensor rand(const Shape& sizes, ScalarType dtype, Device device, const char* op, Generator* gen) {
  check_floating(dtype, op);
  return fill(sizes, dtype, device, philox::kUniform, 0, 1, op, gen);
}

Tensor randn(const Shape& sizes, ScalarType dtype, Device device, const char* op, Generator* gen) {
  check_floating(dtype, op);
  return fill(sizes, dtype, device, philox::kNormal, 0, 1, op, gen);
}

Tensor randint(int64_t low, int64_t high, const Shape& sizes, ScalarType dtype, Device device,
               const char* op, Generator* gen) {
  GENESIS_CHECK_TYPE(dtype != ScalarType::Bool, op, "not implemented for dtype bool");
  GENESIS_CHECK_VALUE(high > low, op, "high (", high, ") must be greater than low (", low, ")");
  int64_t lo, hi;
  int_limits(dtype, lo, hi);
  GENESIS_CHECK_VALUE(low >= lo && high - 1 <= hi, op, "range [", low, ", ", high,
                      ") does not fit in dtype ", scalar_type_name(dtype), " (its integers span [",
                      lo, ", ", hi, "])");
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return fill(sizes, dtype, device, philox::kInteger, low, range, op, gen);
}

}  // namespace genesis::ops

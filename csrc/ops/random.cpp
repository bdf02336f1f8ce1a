#include "ops/random.h"

#include <limits>
#include <mutex>
#include <random>

#include "core/errors.h"
#include "cpu/random.h"
#include "cuda/random.h"

namespace genesis::ops {

namespace {

// PyTorch's default seed, so a fresh process starts from a known state.
constexpr uint64_t kDefaultSeed = 67280421310721ull;

struct Generator {
  std::mutex mutex;
  uint64_t seed = kDefaultSeed;
  uint64_t offset = 0;
};

Generator& generator() {
  static Generator g;
  return g;
}

struct Counters {
  uint64_t seed, offset;
};

// Hands out the next n counters; concurrent calls get disjoint ranges.
Counters reserve(int64_t n) {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mutex);
  Counters c{g.seed, g.offset};
  g.offset += static_cast<uint64_t>(n);
  return c;
}

Tensor fill(const Shape& sizes, ScalarType dtype, Device device, philox::Kind kind, int64_t low,
            uint64_t range, const char* op) {
  checked_numel(sizes, op);
  // Allocate first: a call that fails to allocate leaves the generator where it was.
  Tensor out = Tensor::empty(sizes, dtype, device);
  Counters c = reserve(out.numel());
  if (out.is_cuda())
    cuda::random_fill(out, kind, c.seed, c.offset, low, range);
  else
    cpu::random_fill(out, kind, c.seed, c.offset, low, range);
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

void manual_seed(uint64_t seed) {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mutex);
  g.seed = seed;
  g.offset = 0;
}

uint64_t initial_seed() {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mutex);
  return g.seed;
}

uint64_t seed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  manual_seed(s);
  return s;
}

Tensor rand(const Shape& sizes, ScalarType dtype, Device device, const char* op) {
  check_floating(dtype, op);
  return fill(sizes, dtype, device, philox::kUniform, 0, 1, op);
}

Tensor randn(const Shape& sizes, ScalarType dtype, Device device, const char* op) {
  check_floating(dtype, op);
  return fill(sizes, dtype, device, philox::kNormal, 0, 1, op);
}

Tensor randint(int64_t low, int64_t high, const Shape& sizes, ScalarType dtype, Device device,
               const char* op) {
  GENESIS_CHECK_TYPE(dtype != ScalarType::Bool, op, "not implemented for dtype bool");
  GENESIS_CHECK_VALUE(high > low, op, "high (", high, ") must be greater than low (", low, ")");
  int64_t lo, hi;
  int_limits(dtype, lo, hi);
  GENESIS_CHECK_VALUE(low >= lo && high - 1 <= hi, op, "range [", low, ", ", high,
                      ") does not fit in dtype ", scalar_type_name(dtype), " (its integers span [",
                      lo, ", ", hi, "])");
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return fill(sizes, dtype, device, philox::kInteger, low, range, op);
}

}  // namespace genesis::ops

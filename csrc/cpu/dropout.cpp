#include "cpu/dropout.h"

#include <type_traits>

#include "core/errors.h"
#include "core/scalar.h"
#include "cpu/parallel.h"
#include "vocab/philox.h"

namespace genesis::cpu {

namespace {

constexpr int64_t kGroupGrain = 4096;  // groups of four elements per chunk of a parallel_for

// The compute type: double for float64, float otherwise.
template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The scale rounded to T, in the compute type (Note [Fused dropout]: as PyTorch's CPU dropout).
template <typename T>
Compute<T> rounded_scale(double scale) {
  return cast_value<Compute<T>>(cast_value<T>(scale));
}

template <typename Body>
void floating(ScalarType dtype, const char* op, const Body& body) {
  switch (dtype) {
    case ScalarType::Float16:
      return body(Half{});
    case ScalarType::BFloat16:
      return body(BFloat16{});
    case ScalarType::Float32:
      return body(float{});
    case ScalarType::Float64:
      return body(double{});
    default:
      GENESIS_FAIL(ErrorKind::Type, op, "expected a floating point tensor");
  }
}

}  // namespace

void fused_dropout(const Tensor& x, const Tensor& out, const Tensor& mask, float keep, double scale,
                   uint64_t seed, uint64_t offset) {
  const int64_t n = x.numel();
  bool* m = mask.mutable_data_as<bool>();
  floating(x.dtype(), "dropout", [&](auto tag) {
    using T = decltype(tag);
    using C = Compute<T>;
    const T* in = x.data_as<T>();
    T* o = out.mutable_data_as<T>();
    const C s = rounded_scale<T>(scale);
    parallel_for((n + 3) / 4, kGroupGrain, [&](int64_t begin, int64_t end) {
      for (int64_t group = begin; group < end; ++group) {
        const philox::Words r = philox::philox4x32_10(offset + static_cast<uint64_t>(group), seed);
        for (int e = 0; e < 4; ++e) {
          const int64_t i = group * 4 + e;
          if (i >= n) break;
          const bool kept = philox::uniform_float(r.w[e], 1.0f) < keep;
          m[i] = kept;
          o[i] = cast_value<T>(cast_value<C>(in[i]) * (kept ? s : C(0)));
        }
      }
    });
  });
}

void dropout_mask_run(bool* mask, int64_t first, int64_t n, float keep, uint64_t seed,
                      uint64_t offset) {
  int64_t i = first;
  const int64_t end = first + n;
  while (i < end) {
    const int64_t group = i / 4;
    const philox::Words r = philox::philox4x32_10(offset + static_cast<uint64_t>(group), seed);
    for (int64_t e = i - group * 4; e < 4 && i < end; ++e, ++i)
      mask[i - first] = philox::uniform_float(r.w[e], 1.0f) < keep;
  }
}

void dropout_masked_scale(const Tensor& grad, const Tensor& mask, const Tensor& out, double scale) {
  const bool* m = mask.data_as<bool>();
  floating(grad.dtype(), "dropout_backward", [&](auto tag) {
    using T = decltype(tag);
    using C = Compute<T>;
    const T* g = grad.data_as<T>();
    T* o = out.mutable_data_as<T>();
    const C s = rounded_scale<T>(scale);
    parallel_for(grad.numel(), kGroupGrain * 4, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        o[i] = cast_value<T>(cast_value<C>(g[i]) * (m[i] ? s : C(0)));
    });
  });
}

}  // namespace genesis::cpu

#include "cpu/random.h"

#include <algorithm>
#include <type_traits>

#include "core/errors.h"
#include "core/scalar.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"
#include "vocab/poisson.h"

namespace genesis::cpu {

namespace {

// One element, converted as the CUDA kernel converts it (kernels/random.cu).
template <typename T>
T sample(philox::Kind kind, uint64_t seed, uint64_t counter, int64_t low, uint64_t range) {
  philox::Words r = philox::philox4x32_10(counter, seed);
  if (kind == philox::kInteger) return cast_value<T>(philox::integer(r, low, range));
  if (kind == philox::kNormal) return cast_value<T>(philox::normal(r));
  if constexpr (std::is_same_v<T, double>) {
    return philox::uniform_double(r.w[0], r.w[1]);
  } else {
    float cap = std::is_same_v<T, Half>       ? philox::kHalfBelowOne
                : std::is_same_v<T, BFloat16> ? philox::kBFloat16BelowOne
                                              : 1.0f;
    return cast_value<T>(philox::uniform_float(r.w[0], cap));
  }
}

// Philox costs tens of operations per element, so threads pay off on smaller chunks than
// the default grain.
constexpr int64_t kGrain = 4096;

// randn with a float32 or 16-bit output: element i is value i % 4 of counter offset + i / 4. A
// chunk may start or end inside a group of 4, so each group writes only its part in the chunk.
template <typename T>
__attribute__((always_inline)) inline void normal_float_chunk(T* p, int64_t begin, int64_t end,
                                                              uint64_t seed, uint64_t offset) {
  for (int64_t g = begin / 4; 4 * g < end; ++g) {
    philox::Floats4 z =
        philox::normals_float(philox::philox4x32_10(offset + static_cast<uint64_t>(g), seed));
    for (int64_t i = std::max(begin, 4 * g); i < std::min(end, 4 * g + 4); ++i)
      p[i] = cast_value<T>(z.v[i - 4 * g]);
  }
}

// Note [Exact-angle sincos] takes a dozen FMAs per pair: inline instructions where the CPU has
// them, calls of the C library's (equally exact) fmaf elsewhere. Both give the same bits, and
// this file is compiled with -ffp-contract=off, so no product is fused where the GPU rounds it.
#if defined(__x86_64__) && defined(__GNUC__)
template <typename T>
__attribute__((target("avx2,fma"))) void normal_float_chunk_fma(T* p, int64_t begin, int64_t end,
                                                                uint64_t seed, uint64_t offset) {
  normal_float_chunk(p, begin, end, seed, offset);
}
#endif

template <typename T>
void normal_float_fill(T* p, int64_t n, uint64_t seed, uint64_t offset) {
#if defined(__x86_64__) && defined(__GNUC__)
  bool fma = cpu_isa() != Isa::Base;
#else
  bool fma = false;
#endif
  parallel_for(n, kGrain, [&](int64_t begin, int64_t end) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (fma) return normal_float_chunk_fma(p, begin, end, seed, offset);
#endif
    normal_float_chunk(p, begin, end, seed, offset);
  });
}

}  // namespace

void random_fill(const Tensor& out, philox::Kind kind, uint64_t seed, uint64_t offset, int64_t low,
                 uint64_t range) {
  GENESIS_CHECK(out.is_contiguous() && !out.is_cuda(), "random",
                "expected a contiguous CPU tensor");
  int64_t n = out.numel();
  GENESIS_DISPATCH_ALL_TYPES(out.dtype(), "random", [&] {
    scalar_t* p = out.mutable_data_as<scalar_t>();
    if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, Half> ||
                  std::is_same_v<scalar_t, BFloat16>) {
      if (kind == philox::kNormal) return normal_float_fill(p, n, seed, offset);
    }
    parallel_for(n, kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        p[i] = sample<scalar_t>(kind, seed, offset + static_cast<uint64_t>(i), low, range);
    });
  });
}

void poisson_fill(const Tensor& out, const Tensor& rates, uint64_t seed, uint64_t offset) {
  GENESIS_CHECK(out.is_contiguous() && rates.is_contiguous() && !out.is_cuda() &&
                    out.dtype() == ScalarType::Float64 && rates.dtype() == ScalarType::Float64,
                "poisson", "expected contiguous float64 CPU tensors");
  const double* r = rates.data_as<double>();
  double* p = out.mutable_data_as<double>();
  // Large rates take a few dozen operations per try; small ones rate + 1 Philox halves.
  parallel_for(out.numel(), kGrain / 4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      p[i] = philox::poisson(r[i], seed, offset + static_cast<uint64_t>(i));
  });
}

}  // namespace genesis::cpu

#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) and the
// per-element formulas of rand, randn and randint. The CPU loop and the CUDA kernel both compile
// this header, so one (seed, counter) gives the same bits on either device.
#include <cmath>
#include <cstdint>

#include "vocab/host_device.h"

namespace genesis::philox {

// What a fill computes; the codes cross into the CUDA launcher as plain ints.
enum Kind : int { kUniform = 0, kNormal = 1, kInteger = 2 };

struct Words {
  uint32_t w[4];
};

GENESIS_HD void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

// Ten rounds on the 128-bit counter (counter, counter_hi) with the 64-bit key `key`. The fills
// use counter_hi = 0; samplers that need more than one call per element (vocab/poisson.h) take
// (counter, 1), (counter, 2), ... for the element that owns `counter`.
GENESIS_HD Words philox4x32_10(uint64_t counter, uint64_t key, uint64_t counter_hi = 0) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = static_cast<uint32_t>(counter_hi), c3 = static_cast<uint32_t>(counter_hi >> 32);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += 0x9E3779B9u;  // the Weyl sequence constants bump the key between rounds
      k1 += 0xBB67AE85u;
    }
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(0xD2511F53u, c0, hi0, lo0);
    mulhilo(0xCD9E8D57u, c2, hi1, lo1);
    uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  return Words{{c0, c1, c2, c3}};
}

// The largest values below 1 of the 16-bit floats: 16-bit rand clamps to them, because
// rounding a float just below 1 to the nearest 16-bit value can give 1.
constexpr float kHalfBelowOne = 0.99951171875f;   // 1 - 2^-11
constexpr float kBFloat16BelowOne = 0.99609375f;  // 1 - 2^-8

// [0, 1) from the top 24 bits of w: exact in float, so every device computes the same value.
// `cap` is kHalfBelowOne / kBFloat16BelowOne for 16-bit outputs, or 1 (no effect) for float.
GENESIS_HD float uniform_float(uint32_t w, float cap) {
  float u = static_cast<float>(w >> 8) * 5.9604644775390625e-08f;  // 2^-24
  return u < cap ? u : cap;
}

// [0, 1) from 53 bits of (a, b), exact in double.
GENESIS_HD double uniform_double(uint32_t a, uint32_t b) {
  uint64_t bits = ((static_cast<uint64_t>(a) << 32) | b) >> 11;
  return static_cast<double>(bits) * 1.1102230246251565e-16;  // 2^-53
}

// Box-Muller on two uniforms in (0, 1] (so log never sees 0), cos branch: randn of float64.
GENESIS_HD double normal(const Words& r) {
  double u1 = 1.0 - uniform_double(r.w[0], r.w[1]);
  double u2 = uniform_double(r.w[2], r.w[3]);
  return ::sqrt(-2.0 * ::log(u1)) * ::cos(6.283185307179586 * u2);
}

// A rounded product that nvcc may not fuse with a later add into an FMA, as the CPU rounds it.
GENESIS_HD float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// Box-Muller in float on the top 24 bits of two words: u1 in (0, 1] (so log never sees 0) and
// u2 in [0, 1) are exact, and every other step is a rounded product or a libm call, so CPU and
// CUDA differ at most by the last bit of logf, cosf and sinf.
GENESIS_HD void normal_pair_float(uint32_t wa, uint32_t wb, float& first, float& second) {
  float u1 = static_cast<float>((wa >> 8) + 1u) * 5.9604644775390625e-08f;  // 2^-24
  float u2 = static_cast<float>(wb >> 8) * 5.9604644775390625e-08f;
  float r = ::sqrtf(-2.0f * ::logf(u1));  // -2 * x is exact
  float theta = mul_rn(6.2831853071795865f, u2);
  first = mul_rn(r, ::cosf(theta));
  second = mul_rn(r, ::sinf(theta));
}

struct Floats4 {
  float v[4];
};

// randn with a float32 or 16-bit output: element i of a call takes value i % 4 of counter
// offset + i / 4, so one Philox call feeds 4 elements (float64 keeps `normal`, one per call).
GENESIS_HD Floats4 normals_float(const Words& r) {
  Floats4 z;
  normal_pair_float(r.w[0], r.w[1], z.v[0], z.v[1]);
  normal_pair_float(r.w[2], r.w[3], z.v[2], z.v[3]);
  return z;
}

// low + (64 random bits mod range); range = high - low as an unsigned 64-bit count, > 0. The
// sum wraps in unsigned arithmetic, so ranges wider than int64 (low < 0 < high) stay exact.
// `mod(bits)` is bits % range, however the caller computes it (CUDA: Note [Invariant modulo]).
template <typename Mod>
GENESIS_HD int64_t integer_with(const Words& r, int64_t low, const Mod& mod) {
  uint64_t bits = (static_cast<uint64_t>(r.w[0]) << 32) | r.w[1];
  return static_cast<int64_t>(static_cast<uint64_t>(low) + mod(bits));
}

GENESIS_HD int64_t integer(const Words& r, int64_t low, uint64_t range) {
  return integer_with(r, low, [range](uint64_t bits) { return bits % range; });
}

}  // namespace genesis::philox

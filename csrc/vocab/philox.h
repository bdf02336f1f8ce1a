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

// a * b + c rounded once, on either device (the CPU's std::fma is correctly rounded too).
GENESIS_HD float fma_rn(float a, float b, float c) {
#ifdef __CUDA_ARCH__
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// Note [Exact-angle sincos]: randn's angle is 2 pi k / 2^24 for a 24-bit integer k, so the
// reduction to a quarter turn is integer arithmetic: k = 2^22 q + j with |j| <= 2^21 (q the
// nearest quarter turn), and the angle is pi/2 (q + t) with t = j / 2^22 in [-1/2, 1/2], exact
// in float. sin(pi/2 t) and cos(pi/2 t) then come from their Taylor series in t to t^9 and t^10
// (truncation below 2e-9 at |t| = 1/2) in FMAs, the leading terms carried with their rounding
// errors, and the quarter turns swap and negate them. Every step is an exactly specified
// rounding (a product, an FMA, a sum), so the CPU and CUDA give the same bits (checked for every
// k on an H200), within 0.73 ulp of the exact values (97.8% of pairs correctly rounded), where
// cosf and sinf of the rounded angle 2 pi u were off by up to 4e-7 from the exact angle's. On
// the CPU it replaced two libm calls: randn 2^24 float32 82.6 -> 70 ms on 2 cores; on an H200 the
// kernel takes the same time as before (compute-bound: Philox, logf and sqrtf are most of it).
// benchmarks/results/2026-11-29-session13.txt has the numbers.
GENESIS_HD void sincos_quarter_turns(uint32_t k, float& sine, float& cosine) {
  uint32_t shifted = k + (1u << 21);
  uint32_t quadrant = (shifted >> 22) & 3u;
  float t = static_cast<float>(static_cast<int32_t>(shifted & ((1u << 22) - 1u)) - (1 << 21)) *
            2.384185791015625e-07f;  // 2^-22
  float t2 = mul_rn(t, t);
  // (pi/2)^n / n! with alternating signs, rounded to float; pi/2 and (pi/2)^2 / 2 also as
  // head + tail, and t^2 with its rounding error, so the leading terms are nearly exact.
  float sine_tail =
      fma_rn(fma_rn(fma_rn(fma_rn(0x1.507834p-13f, t2, -0x1.32d2ccp-8f), t2, 0x1.466bc6p-4f), t2,
                    -0x1.4abbcep-1f),
             t2, -0x1.777a5cp-25f);
  float s = fma_rn(t, 0x1.921fb6p+0f, mul_rn(t, sine_tail));
  float t2_error = fma_rn(t, t, -t2);
  float square_term = mul_rn(-0x1.3bd3ccp+0f, t2);  // the largest term after 1
  float square_error = fma_rn(-0x1.3bd3ccp+0f, t2, -square_term);
  float head = 1.0f + square_term;  // square_term in [-0.31, 0]: its rounding is recovered
  float head_error = square_term - (head - 1.0f);
  float quartic = fma_rn(fma_rn(fma_rn(-0x1.a6d1f2p-16f, t2, 0x1.e1f506p-11f), t2, -0x1.55d3c8p-6f),
                         t2, 0x1.03c1f0p-2f);
  float small = fma_rn(-0x1.3bd3ccp+0f, t2_error,
                       fma_rn(-0x1.37c8bcp-25f, t2, mul_rn(mul_rn(t2, t2), quartic)));
  float c = head + (head_error + square_error + small);
  float odd = quadrant & 1u ? c : s, even = quadrant & 1u ? s : c;
  sine = quadrant & 2u ? -odd : odd;
  cosine = (quadrant + 1u) & 2u ? -even : even;
}

// Box-Muller in float on the top 24 bits of two words: u1 in (0, 1] (so log never sees 0) is
// exact, and the angle 2 pi u2 is taken exactly (Note [Exact-angle sincos]); every other step is
// a rounded product or FMA, or sqrtf, so CPU and CUDA differ at most by the last bit of logf.
GENESIS_HD void normal_pair_float(uint32_t wa, uint32_t wb, float& first, float& second) {
  float u1 = static_cast<float>((wa >> 8) + 1u) * 5.9604644775390625e-08f;  // 2^-24
  float r = ::sqrtf(-2.0f * ::logf(u1));                                    // -2 * x is exact
  float sine, cosine;
  sincos_quarter_turns(wb >> 8, sine, cosine);
  first = mul_rn(r, cosine);
  second = mul_rn(r, sine);
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

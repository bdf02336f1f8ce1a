#include "cpu/vector_math.h"

#include "cpu/isa.h"

// Note [Vector exp]
// exp(x) = 2^k * e^r with k = round(x / ln2) and r = x - k*ln2, |r| <= ln2/2 (ln2 split in a hi
// and a lo part, each subtracted with one FMA, so r keeps its low bits). e^r = 1 + r + r^2 q(r),
// where q is a Chebyshev fit of (e^r - 1 - r) / r^2 (relative error ~1e-8 for float, ~2e-17 for
// double, well under the rounding of the evaluation). x is first clamped to a range whose ends
// still give 0 and inf; the clamp keeps NaN (max/min return their second operand on NaN), and
// NaN then flows through the arithmetic. The scaling by 2^k must round once into the subnormal
// range: AVX-512 has scalef for that; on AVX2 we multiply by 2^(k/2) and then 2^(k - k/2), both
// normal, so only the last product rounds.

// Note [Vector erf and tanh]
// With AVX2, float erf and tanh (and the GELUs over them) are evaluated in double, 4 lanes at a
// time, to about 1e-10 relative, so the float result is the correctly rounded one
// but for near-halfway cases: within 1 ulp of it, as glibc's erff and tanhf are (2.2M floats in
// [-5, 5]: 174 one-ulp differences from float64 erf rounded, none over). Plain float code would
// need more care for the same accuracy; double costs half the lanes.
// erf: |x| < 1 -> x p(x^2), p a degree-7 fit of erf(x)/x in t = 2x^2 - 1 (relative 3.4e-11);
// otherwise sign(x) (1 - e^(-a^2) q(a)), a = min(|x|, 4), q a degree-14 fit of erfc(a) e^(a^2)
// in t = (a - 2.5) / 1.5 (relative 1.9e-10; erf of 4 and beyond rounds to 1 in float). The fits
// are least squares on 4000 Chebyshev nodes, weighted for relative error.
// tanh: |x| < 1/16 -> x (1 + x^2 r(x^2)), r the Taylor series to x^8 (relative 1e-14);
// otherwise sign(x) (1 - 2 / (e^(2|x|) + 1)), which loses at most 4 bits of double there.
// NaN flows through both branches (the clamps keep it); +-inf gives +-1; -0 stays -0.
// AVX-512 evaluates both in float instead, 16 lanes (Note [Float tanh], Note [Float erf]).

// Note [Float erf]
// With AVX-512, float erf runs in float lanes as tanh does (Note [Float tanh]): |x| < 1 ->
// x + x q(x^2), q a degree-7 fit of erf(x)/x - 1 (the final FMA adds x exactly once);
// otherwise sign(x) (1 - e^(-x^2) r(t)), a = min(|x|, 4), t = (a - 2.5) / 1.5, r a degree-12 fit
// of erfc(a) e^(a^2), with a^2 split exactly into hi + lo by an FMA and e^-(hi + lo) taken as
// e^-hi (1 - lo), so a^2's rounding does not reach e^(-a^2). Fits by least squares on
// Chebyshev nodes, weighted for relative error. Within 1 ulp of float64's erf rounded
// (tests/ops/test_vector_math.py); special values as the double path's.

// Note [Vector log]
// log(x) = e ln2 + log1p(f): e and the mantissa m in [1, 2) from getexp / getmant (subnormals
// included), halved with e + 1 above sqrt(2) so f = m - 1 (exact) lies in [sqrt(1/2) - 1,
// sqrt(2) - 1], log1p(f) = f + f^2 q(f), q a degree-8 fit (least squares on Chebyshev nodes,
// weighted for relative error), and e ln2 added in two parts (ln2's high part times e is
// exact). log1p(y) is log(u) + (y - (u - 1)) / u with u = 1 + y rounded, the quotient restoring
// what that rounding dropped; softplus is log1p(e^x) below the functor's threshold of 20.
// Within 1 ulp of float64's rounded (tests/ops/test_vector_math.py). AVX-512 only. log: 0 gives
// -inf, negatives and NaN NaN, inf inf; log1p: -1 gives -inf, +-0 itself.

// Note [Vector expm1]
// |x| < 0.7: x + x^2 f(x), f a degree-6 fit of (expm1(x) - x) / x^2 (least squares on Chebyshev
// nodes, weighted for relative error). Elsewhere from exp's reduction (Note [Vector exp]): with e^x
// = 2^k (1 + p), p = e^r - 1 kept apart, e^x - 1 = 2^k p + (2^k - 1), one FMA whose addend is exact
// for |k| <= 24 and whose two terms have one sign once |x| >= 0.7 (below that, k = +-1 with r of
// the other sign would cancel to 2 ulps). Beyond |k| = 24: 2^k ((p - 2^-k) + 1) for k > 0 (rounded
// once; exp's result less 1 would round twice) and 2^k (1 + p) - 1 for k < 0. Within 1 ulp of
// float64's rounded (tests/ops/test_vector_math.py). AVX-512 only (AVX2 keeps the libm loop). +-0
// gives +-0, NaN NaN, +inf inf, -inf -1.

// Note [Float tanh]
// With AVX-512, float tanh runs in float lanes, twice as many as double's and without double's
// slow division: |x| < 0.75 -> x + x^3 p(x^2), p a degree-5 fit of (tanh(x)/x - 1) / x^2
// (least squares on 4000 Chebyshev nodes, weighted for tanh's relative error); otherwise
// sign(x) (1 - 2 / (e^(2|x|) + 1)) with the float vector exp (Note [Vector exp]), where
// tanh >= 0.63 bounds how far the errors of e, the sum and the quotient reach. Against float64's
// tanh rounded to float the results stay within 1 ulp, as the double path's (4.2M floats in
// [-5, 5] and [-1.2, 1.2]: 6% one ulp off, none more); special values as the double path's.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cstdint>
#include <cstring>

// GCC 12's AVX-512 intrinsics trip a false -Wmaybe-uninitialized from the
// _mm512_undefined_* placeholders inside the headers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GENESIS_AVX512 __attribute__((target("avx512f,avx2,fma")))
#define GENESIS_AVX2 __attribute__((target("avx2,fma")))

namespace genesis::cpu {

namespace {

constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// float: e^-110 and e^100 are already 0 and inf.
constexpr float kLoF = -110.0f, kHiF = 100.0f;
constexpr float kLog2eF = 0x1.715476p+0f, kLn2HiF = 0x1.62e430p-1f, kLn2LoF = -0x1.05c610p-29f;
constexpr float kQF[5] = {0x1p-1f, 0x1.5554dep-3f, 0x1.55551ap-5f, 0x1.120b62p-7f, 0x1.6d10fcp-10f};

// double: e^-800 and e^800 are 0 and inf; 2^(k/2) stays normal for |k| < 2044.
constexpr double kLoD = -800.0, kHiD = 800.0;
constexpr double kLog2eD = 0x1.71547652b82fep+0, kLn2HiD = 0x1.62e42fefa39efp-1,
                 kLn2LoD = 0x1.abc9e3b39803fp-56;
constexpr double kQD[10] = {0x1.0000000000001p-1,  0x1.5555555555556p-3,  0x1.5555555553d68p-5,
                            0x1.11111111109b5p-7,  0x1.6c16c17889ef1p-10, 0x1.a01a01a7c2efep-13,
                            0x1.a019b9149a41cp-16, 0x1.71de0db2f6b19p-19, 0x1.28917c89a43a7p-22,
                            0x1.af389ecfc4b9cp-26};

// The fits of Note [Vector erf and tanh].
constexpr double kErfSmall[8] = {
    0x1.ee51eb2385885p-1,  -0x1.1fd16292f6172p-3,  0x1.4543691b28c3dp-6,  -0x1.2b902a0b975f3p-9,
    0x1.c827df905a095p-13, -0x1.263a5a1725e39p-16, 0x1.4a9c8f26fd193p-20, -0x1.434bf7b17b5a6p-24};
constexpr double kErfcScaled[15] = {
    0x1.afbb3f3bdc879p-3,  -0x1.c8ca44080f4bep-4,  0x1.cba83b39f55e9p-5,  -0x1.ba74592ac326dp-6,
    0x1.99409357c15dcp-7,  -0x1.6d1848ebfce1fp-8,  0x1.3b0b447420d9dp-9,  -0x1.076bb119ed56fp-10,
    0x1.acfafc64c6cecp-12, -0x1.58aff2d9423e2p-13, 0x1.07a3eca580a81p-14, -0x1.59a05506b11e6p-16,
    0x1.0ee80d97c2590p-17, -0x1.5121a47c92bc1p-18, 0x1.b8324be2d304fp-20};
constexpr double kTanhSmall[4] = {-1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835};
constexpr double kErfSplit = 1.0, kErfClamp = 4.0, kTanhSplit = 0.0625;
// Note [Float tanh]'s fit and split.
constexpr float kTanhF[6] = {-0x1.555548p-2f, 0x1.110d92p-3f,  -0x1.b978cep-5f,
                             0x1.5f5a1ep-6f,  -0x1.f515e6p-8f, 0x1.c59640p-10f};
constexpr float kTanhSplitF = 0.75f;
// Note [Float erf]'s fits: (erf(x) / x - 1) in x^2 below 1, erfc(x) e^(x^2) in (x - 2.5) / 1.5
// on [1, 4].
constexpr float kErfSmallF[8] = {0x1.06eba8p-3f,  -0x1.812746p-2f, 0x1.ce2f0cp-4f,
                                 -0x1.b829f8p-6f, 0x1.562c2cp-8f,  -0x1.bce1a0p-11f,
                                 0x1.d8e58cp-14f, -0x1.45222ep-17f};
constexpr float kErfcScaledF[13] = {
    0x1.afbb40p-3f,  -0x1.c8ca40p-4f,  0x1.cba848p-5f,   -0x1.ba75fep-6f, 0x1.993eccp-7f,
    -0x1.6ce1acp-8f, 0x1.3b1900p-9f,   -0x1.0a7032p-10f, 0x1.ade7aep-12f, -0x1.2f720ep-13f,
    0x1.ef198cp-15f, -0x1.337be6p-15f, 0x1.a19b50p-17f};
// Note [Vector log]'s fit of (log1p(f) - f) / f^2 on [sqrt(1/2) - 1, sqrt(2) - 1].
constexpr float kLogF[9] = {-0x1.fffff8p-2f, 0x1.555558p-2f,  -0x1.000422p-2f,
                            0x1.999fc2p-3f,  -0x1.5424e0p-3f, 0x1.22bf86p-3f,
                            -0x1.0f9b0cp-3f, 0x1.068b2ap-3f,  -0x1.321a4cp-4f};
// Note [Vector expm1]'s fit of (expm1(x) - x) / x^2 on |x| <= 0.7.
constexpr float kExpm1F[7] = {0x1p-1f,         0x1.55555ep-3f,  0x1.55552ep-5f, 0x1.110ae6p-7f,
                              0x1.6c27b4p-10f, 0x1.a58cf2p-13f, 0x1.9e0de0p-16f};

// ---- AVX-512 ----

GENESIS_AVX512 inline __m512 exp16(__m512 x) {
  x = _mm512_min_ps(_mm512_set1_ps(kHiF), _mm512_max_ps(_mm512_set1_ps(kLoF), x));
  __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2eF)), kRound);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2HiF), x);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2LoF), r);
  __m512 q = _mm512_set1_ps(kQF[4]);
  for (int i = 3; i >= 0; --i) q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kQF[i]));
  __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r);  // e^r - 1
  return _mm512_scalef_ps(_mm512_add_ps(p, _mm512_set1_ps(1.0f)), k);
}

// dst[i] = Op(src[i]), 32 floats an iteration (two independent vectors hide the FMA latency
// chains), the tail under a mask.
template <__m512 (*Op)(__m512)>
GENESIS_AVX512 void map_f32_avx512(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 a = Op(_mm512_loadu_ps(src + i)), b = Op(_mm512_loadu_ps(src + i + 16));
    _mm512_storeu_ps(dst + i, a);
    _mm512_storeu_ps(dst + i + 16, b);
  }
  for (; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(dst + i, m, Op(_mm512_maskz_loadu_ps(m, src + i)));
  }
}

GENESIS_AVX512 inline __m512d exp8(__m512d x) {
  x = _mm512_min_pd(_mm512_set1_pd(kHiD), _mm512_max_pd(_mm512_set1_pd(kLoD), x));
  __m512d k = _mm512_roundscale_pd(_mm512_mul_pd(x, _mm512_set1_pd(kLog2eD)), kRound);
  __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(kLn2HiD), x);
  r = _mm512_fnmadd_pd(k, _mm512_set1_pd(kLn2LoD), r);
  __m512d q = _mm512_set1_pd(kQD[9]);
  for (int i = 8; i >= 0; --i) q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(kQD[i]));
  __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(r, r), q, r);
  return _mm512_scalef_pd(_mm512_add_pd(p, _mm512_set1_pd(1.0)), k);
}

// e^x - 1 (Note [Vector expm1]).
GENESIS_AVX512 inline __m512 expm1_16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 c = _mm512_min_ps(_mm512_set1_ps(kHiF), _mm512_max_ps(_mm512_set1_ps(kLoF), x));
  __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(c, _mm512_set1_ps(kLog2eF)), kRound);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2HiF), c);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2LoF), r);
  __m512 q = _mm512_set1_ps(kQF[4]);
  for (int i = 3; i >= 0; --i) q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kQF[i]));
  __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r);  // e^r - 1
  __m512 scale = _mm512_scalef_ps(one, k);                // 2^k; 2^k - 1 exact for k <= 24
  __m512 near = _mm512_fmadd_ps(scale, p, _mm512_sub_ps(scale, one));
  // beyond: below, e^x - 1 rounds once from 2^k (1 + p) - 1; above, 2^k ((p - 2^-k) + 1), the
  // difference exact and one rounding in the sum (2^k (1 + p) - 1 would round twice)
  __m512 below = _mm512_sub_ps(_mm512_scalef_ps(_mm512_add_ps(p, one), k), one);
  __m512 above = _mm512_scalef_ps(
      _mm512_add_ps(_mm512_sub_ps(p, _mm512_scalef_ps(one, _mm512_sub_ps(_mm512_setzero_ps(), k))),
                    one),
      k);
  __m512 far =
      _mm512_mask_blend_ps(_mm512_cmp_ps_mask(k, _mm512_setzero_ps(), _CMP_GT_OQ), below, above);
  __m512 e = _mm512_mask_blend_ps(
      _mm512_cmp_ps_mask(_mm512_abs_ps(k), _mm512_set1_ps(24.0f), _CMP_LE_OQ), far, near);
  // |x| < 0.7: x + x^2 f(x) directly (no reduction, whose two terms would cancel there); +-0
  // stays itself
  __m512 f = _mm512_set1_ps(kExpm1F[6]);
  for (int i = 5; i >= 0; --i) f = _mm512_fmadd_ps(f, x, _mm512_set1_ps(kExpm1F[i]));
  __m512 direct = _mm512_fmadd_ps(_mm512_mul_ps(x, x), f, x);
  e = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(0.7f), _CMP_LT_OQ),
                           e, direct);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), e, x);
}

// log(x) (Note [Vector log]).
GENESIS_AVX512 inline __m512 log16(__m512 x) {
  __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);  // [1, 2)
  __m512 e = _mm512_getexp_ps(x);                                          // floor(log2 x)
  __mmask16 high = _mm512_cmp_ps_mask(m, _mm512_set1_ps(1.41421356f), _CMP_GT_OQ);
  m = _mm512_mask_mul_ps(m, high, m, _mm512_set1_ps(0.5f));
  e = _mm512_mask_add_ps(e, high, e, _mm512_set1_ps(1.0f));
  __m512 f = _mm512_sub_ps(m, _mm512_set1_ps(1.0f));  // exact
  __m512 q = _mm512_set1_ps(kLogF[8]);
  for (int i = 7; i >= 0; --i) q = _mm512_fmadd_ps(q, f, _mm512_set1_ps(kLogF[i]));
  __m512 l = _mm512_fmadd_ps(_mm512_mul_ps(f, f), q, f);  // log1p(f)
  __m512 r =
      _mm512_fmadd_ps(e, _mm512_set1_ps(kLn2HiF), _mm512_fmadd_ps(e, _mm512_set1_ps(kLn2LoF), l));
  const __m512 zero = _mm512_setzero_ps();
  r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, zero, _CMP_EQ_OQ), r, _mm512_set1_ps(-INFINITY));
  r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ), r, x);
  // negative x and NaN give NaN
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, zero, _CMP_NLT_UQ), _mm512_set1_ps(NAN), r);
}

// log1p(y) = log(u) + (y - (u - 1)) / u with u = 1 + y rounded: the quotient puts back what the
// rounding of u lost (Note [Vector log]).
GENESIS_AVX512 inline __m512 log1p16(__m512 y) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 u = _mm512_add_ps(one, y);
  __m512 r = _mm512_add_ps(log16(u), _mm512_div_ps(_mm512_sub_ps(y, _mm512_sub_ps(u, one)), u));
  // -1 gives -inf, +inf inf, +-0 itself (the quotient is 0 / 0 or inf / inf there)
  r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(u, _mm512_setzero_ps(), _CMP_EQ_OQ), r,
                           _mm512_set1_ps(-INFINITY));
  __mmask16 keep = _mm512_cmp_ps_mask(y, _mm512_setzero_ps(), _CMP_EQ_OQ) |
                   _mm512_cmp_ps_mask(y, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ);
  return _mm512_mask_blend_ps(keep, r, y);
}

// softplus with the functor's threshold: x above 20, log1p(e^x) at and below it.
GENESIS_AVX512 inline __m512 softplus16(__m512 x) {
  __m512 r = log1p16(exp16(_mm512_min_ps(_mm512_set1_ps(20.0f), x)));  // keeps NaN
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(20.0f), _CMP_GT_OQ), r, x);
}

// erf in float lanes (Note [Float erf]).
GENESIS_AVX512 inline __m512 erf16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 a = _mm512_abs_ps(x);
  __m512 u = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(kErfSmallF[7]);
  for (int i = 6; i >= 0; --i) p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(kErfSmallF[i]));
  __m512 small = _mm512_fmadd_ps(x, p, x);
  __m512 c = _mm512_min_ps(_mm512_set1_ps(4.0f), a);  // keeps NaN
  __m512 t = _mm512_mul_ps(_mm512_sub_ps(c, _mm512_set1_ps(2.5f)), _mm512_set1_ps(1.0f / 1.5f));
  __m512 q = _mm512_set1_ps(kErfcScaledF[12]);
  for (int i = 11; i >= 0; --i) q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(kErfcScaledF[i]));
  __m512 hi = _mm512_mul_ps(c, c), lo = _mm512_fmsub_ps(c, c, hi);  // c^2 = hi + lo exactly
  __m512 e = exp16(_mm512_sub_ps(_mm512_setzero_ps(), hi));
  e = _mm512_fnmadd_ps(e, lo, e);  // e^-(hi + lo) = e^-hi (1 - lo)
  __m512 big = _mm512_fnmadd_ps(e, q, one);
  __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  big = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(big), sign));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, one, _CMP_LT_OQ), big, small);
}

// x / (1 + e^-x), the functor's silu over the vector exp.
GENESIS_AVX512 inline __m512 silu16(__m512 x) {
  __m512 e = exp16(_mm512_sub_ps(_mm512_setzero_ps(), x));
  return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

GENESIS_AVX512 inline __m512 sigmoid16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  return _mm512_div_ps(one, _mm512_add_ps(one, exp16(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}

GENESIS_AVX512 void exp_f64_avx512(double* dst, const double* src, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512d a = exp8(_mm512_loadu_pd(src + i)), b = exp8(_mm512_loadu_pd(src + i + 8));
    _mm512_storeu_pd(dst + i, a);
    _mm512_storeu_pd(dst + i + 8, b);
  }
  for (; i < n; i += 8) {
    __mmask8 m = n - i >= 8 ? __mmask8(0xff) : __mmask8((1u << (n - i)) - 1);
    _mm512_mask_storeu_pd(dst + i, m, exp8(_mm512_maskz_loadu_pd(m, src + i)));
  }
}

// tanh in float lanes (Note [Float tanh]).
GENESIS_AVX512 inline __m512 tanh16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 a = _mm512_abs_ps(x);
  __m512 u = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(kTanhF[5]);
  for (int i = 4; i >= 0; --i) p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(kTanhF[i]));
  __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(a, u), p, a);
  __m512 e = exp16(_mm512_add_ps(a, a));
  __m512 big = _mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, one)));
  __m512 t = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(kTanhSplitF), _CMP_LT_OQ),
                                  big, small);
  // tanh(|x|) >= 0 (or NaN) takes x's sign, -0 included
  __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(t), sign));
}

// The GELUs as their functors compute them, over the float erf and tanh, in the functors' order
// of operations (so the bits are those of the chunked form that came before).
GENESIS_AVX512 inline __m512 gelu16(__m512 x) {
  __m512 e = erf16(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752440f)));
  return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x),
                       _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

GENESIS_AVX512 inline __m512 gelu_tanh16(__m512 x) {
  __m512 cube = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.044715f), x), x), x);
  __m512 t = tanh16(_mm512_mul_ps(_mm512_set1_ps(0.79788456080286535588f), _mm512_add_ps(x, cube)));
  return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x),
                       _mm512_add_ps(_mm512_set1_ps(1.0f), t));
}

// The activations' gradients a f'(b) (Note [Fused activation backward] in vocab/math_functors.h)
// in their functors' order of operations, over the vector exp, erf and tanh.
GENESIS_AVX512 inline __m512 silu_backward16(__m512 a, __m512 b) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 s = _mm512_div_ps(one, _mm512_add_ps(one, exp16(_mm512_sub_ps(_mm512_setzero_ps(), b))));
  return _mm512_mul_ps(_mm512_mul_ps(a, s),
                       _mm512_add_ps(one, _mm512_mul_ps(b, _mm512_sub_ps(one, s))));
}

GENESIS_AVX512 inline __m512 gelu_backward16(__m512 a, __m512 b) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 cdf = _mm512_mul_ps(
      _mm512_set1_ps(0.5f),
      _mm512_add_ps(one, erf16(_mm512_mul_ps(b, _mm512_set1_ps(0.70710678118654752440f)))));
  __m512 pdf = _mm512_mul_ps(exp16(_mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), b), b)),
                             _mm512_set1_ps(0.39894228040143267794f));
  return _mm512_mul_ps(a, _mm512_add_ps(cdf, _mm512_mul_ps(b, pdf)));
}

GENESIS_AVX512 inline __m512 gelu_tanh_backward16(__m512 a, __m512 b) {
  const __m512 one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
  const __m512 k = _mm512_set1_ps(0.79788456080286535588f), c = _mm512_set1_ps(0.044715f);
  __m512 b2 = _mm512_mul_ps(b, b);
  __m512 t = tanh16(_mm512_mul_ps(k, _mm512_add_ps(b, _mm512_mul_ps(_mm512_mul_ps(c, b2), b))));
  __m512 left = _mm512_mul_ps(half, _mm512_add_ps(one, t));
  __m512 right = _mm512_mul_ps(
      _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(half, b), _mm512_sub_ps(one, _mm512_mul_ps(t, t))),
                    k),
      _mm512_add_ps(one, _mm512_mul_ps(_mm512_set1_ps(3.0f * 0.044715f), b2)));
  return _mm512_mul_ps(a, _mm512_add_ps(left, right));
}

template <__m512 (*Op)(__m512, __m512)>
GENESIS_AVX512 void map2_f32_avx512(float* dst, const float* a, const float* b, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(dst + i, Op(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i)));
  if (i < n) {
    __mmask16 m = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(dst + i, m,
                          Op(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i)));
  }
}

// ---- AVX2 + FMA ----

GENESIS_AVX2 inline __m256 exp8(__m256 x) {
  x = _mm256_min_ps(_mm256_set1_ps(kHiF), _mm256_max_ps(_mm256_set1_ps(kLoF), x));
  __m256 k = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2eF)), kRound);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2HiF), x);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2LoF), r);
  __m256 q = _mm256_set1_ps(kQF[4]);
  for (int i = 3; i >= 0; --i) q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kQF[i]));
  __m256 p = _mm256_fmadd_ps(_mm256_mul_ps(r, r), q, r);
  __m256i k1 = _mm256_cvtps_epi32(k);  // |k| <= 159 after the clamp
  __m256i k0 = _mm256_srai_epi32(k1, 1);
  k1 = _mm256_sub_epi32(k1, k0);
  const __m256i bias = _mm256_set1_epi32(127);
  __m256 s0 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k0, bias), 23));
  __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_add_ps(p, _mm256_set1_ps(1.0f)), s0), s1);
}

GENESIS_AVX2 inline __m256d exp4(__m256d x) {
  x = _mm256_min_pd(_mm256_set1_pd(kHiD), _mm256_max_pd(_mm256_set1_pd(kLoD), x));
  __m256d k = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(kLog2eD)), kRound);
  __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(kLn2HiD), x);
  r = _mm256_fnmadd_pd(k, _mm256_set1_pd(kLn2LoD), r);
  __m256d q = _mm256_set1_pd(kQD[9]);
  for (int i = 8; i >= 0; --i) q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(kQD[i]));
  __m256d p = _mm256_fmadd_pd(_mm256_mul_pd(r, r), q, r);
  __m128i k1 = _mm256_cvtpd_epi32(k);  // |k| <= 1155 after the clamp
  __m128i k0 = _mm_srai_epi32(k1, 1);
  k1 = _mm_sub_epi32(k1, k0);
  const __m128i bias = _mm_set1_epi32(1023);
  __m256d s0 =
      _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm_add_epi32(k0, bias)), 52));
  __m256d s1 =
      _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm_add_epi32(k1, bias)), 52));
  return _mm256_mul_pd(_mm256_mul_pd(_mm256_add_pd(p, _mm256_set1_pd(1.0)), s0), s1);
}

GENESIS_AVX2 void exp_f32_avx2(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 a = exp8(_mm256_loadu_ps(src + i)), b = exp8(_mm256_loadu_ps(src + i + 8));
    _mm256_storeu_ps(dst + i, a);
    _mm256_storeu_ps(dst + i + 8, b);
  }
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, exp8(_mm256_loadu_ps(src + i)));
  if (i < n) {  // the tail goes through a padded buffer (simpler than maskload masks)
    float buf[8] = {};
    std::memcpy(buf, src + i, (n - i) * sizeof(float));
    _mm256_storeu_ps(buf, exp8(_mm256_loadu_ps(buf)));
    std::memcpy(dst + i, buf, (n - i) * sizeof(float));
  }
}

GENESIS_AVX2 inline __m256 sigmoid8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(one, _mm256_add_ps(one, exp8(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

GENESIS_AVX2 void sigmoid_f32_avx2(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, sigmoid8(_mm256_loadu_ps(src + i)));
  if (i < n) {  // the tail through a padded buffer, as exp's
    float buf[8] = {};
    std::memcpy(buf, src + i, (n - i) * sizeof(float));
    _mm256_storeu_ps(buf, sigmoid8(_mm256_loadu_ps(buf)));
    std::memcpy(dst + i, buf, (n - i) * sizeof(float));
  }
}

GENESIS_AVX2 void exp_f64_avx2(double* dst, const double* src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256d a = exp4(_mm256_loadu_pd(src + i)), b = exp4(_mm256_loadu_pd(src + i + 4));
    _mm256_storeu_pd(dst + i, a);
    _mm256_storeu_pd(dst + i + 4, b);
  }
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(dst + i, exp4(_mm256_loadu_pd(src + i)));
  if (i < n) {
    double buf[4] = {};
    std::memcpy(buf, src + i, (n - i) * sizeof(double));
    _mm256_storeu_pd(buf, exp4(_mm256_loadu_pd(buf)));
    std::memcpy(dst + i, buf, (n - i) * sizeof(double));
  }
}

template <int N>
GENESIS_AVX2 inline __m256d horner4(const double (&c)[N], __m256d t) {
  __m256d r = _mm256_set1_pd(c[N - 1]);
  for (int i = N - 2; i >= 0; --i) r = _mm256_fmadd_pd(r, t, _mm256_set1_pd(c[i]));
  return r;
}

struct Erf4 {
  GENESIS_AVX2 __m256d operator()(__m256d x) const {
    __m256d sign = _mm256_and_pd(x, _mm256_set1_pd(-0.0));
    __m256d a = _mm256_xor_pd(x, sign);
    __m256d u = _mm256_mul_pd(x, x);
    __m256d small = _mm256_mul_pd(
        x, horner4(kErfSmall, _mm256_fmsub_pd(u, _mm256_set1_pd(2.0), _mm256_set1_pd(1.0))));
    __m256d c = _mm256_min_pd(_mm256_set1_pd(kErfClamp), a);  // keeps NaN
    __m256d t = _mm256_mul_pd(_mm256_sub_pd(c, _mm256_set1_pd(2.5)), _mm256_set1_pd(2.0 / 3));
    __m256d e = exp4(_mm256_sub_pd(_mm256_setzero_pd(), _mm256_mul_pd(c, c)));
    __m256d big =
        _mm256_or_pd(_mm256_fnmadd_pd(e, horner4(kErfcScaled, t), _mm256_set1_pd(1.0)), sign);
    return _mm256_blendv_pd(big, small, _mm256_cmp_pd(a, _mm256_set1_pd(kErfSplit), _CMP_LT_OQ));
  }
};

struct Tanh4 {
  GENESIS_AVX2 __m256d operator()(__m256d x) const {
    __m256d sign = _mm256_and_pd(x, _mm256_set1_pd(-0.0));
    __m256d a = _mm256_xor_pd(x, sign);
    __m256d u = _mm256_mul_pd(x, x);
    __m256d small =
        _mm256_mul_pd(x, _mm256_fmadd_pd(u, horner4(kTanhSmall, u), _mm256_set1_pd(1.0)));
    __m256d e = exp4(_mm256_add_pd(a, a));
    __m256d big = _mm256_or_pd(
        _mm256_sub_pd(_mm256_set1_pd(1.0),
                      _mm256_div_pd(_mm256_set1_pd(2.0), _mm256_add_pd(e, _mm256_set1_pd(1.0)))),
        sign);
    return _mm256_blendv_pd(big, small, _mm256_cmp_pd(a, _mm256_set1_pd(kTanhSplit), _CMP_LT_OQ));
  }
};

template <typename Op>
GENESIS_AVX2 void map_f32_through_f64_avx2(float* dst, const float* src, int64_t n, Op op) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256d a = op(_mm256_cvtps_pd(_mm_loadu_ps(src + i)));
    __m256d b = op(_mm256_cvtps_pd(_mm_loadu_ps(src + i + 4)));
    _mm_storeu_ps(dst + i, _mm256_cvtpd_ps(a));
    _mm_storeu_ps(dst + i + 4, _mm256_cvtpd_ps(b));
  }
  for (; i < n; i += 4) {
    float buf[4] = {};
    int64_t k = n - i < 4 ? n - i : 4;
    std::memcpy(buf, src + i, k * sizeof(float));
    _mm_storeu_ps(buf, _mm256_cvtpd_ps(op(_mm256_cvtps_pd(_mm_loadu_ps(buf)))));
    std::memcpy(dst + i, buf, k * sizeof(float));
  }
}

}  // namespace

bool exp_f32_simd(float* dst, const float* src, int64_t n) {
  switch (cpu_isa()) {
    case Isa::Avx512:
      map_f32_avx512<exp16>(dst, src, n);
      return true;
    case Isa::Avx2:
      exp_f32_avx2(dst, src, n);
      return true;
    default:
      return false;
  }
}

bool exp_f64_simd(double* dst, const double* src, int64_t n) {
  switch (cpu_isa()) {
    case Isa::Avx512:
      exp_f64_avx512(dst, src, n);
      return true;
    case Isa::Avx2:
      exp_f64_avx2(dst, src, n);
      return true;
    default:
      return false;
  }
}

bool log_f32_simd(float* dst, const float* src, int64_t n) {
  if (cpu_isa() != Isa::Avx512) return false;
  map_f32_avx512<log16>(dst, src, n);
  return true;
}

bool log1p_f32_simd(float* dst, const float* src, int64_t n) {
  if (cpu_isa() != Isa::Avx512) return false;
  map_f32_avx512<log1p16>(dst, src, n);
  return true;
}

bool gelu_f32_simd(float* dst, const float* src, int64_t n, bool tanh_form) {
  if (cpu_isa() != Isa::Avx512) return false;
  if (tanh_form)
    map_f32_avx512<gelu_tanh16>(dst, src, n);
  else
    map_f32_avx512<gelu16>(dst, src, n);
  return true;
}

bool activation_backward_f32_simd(ActivationGrad kind, float* dst, const float* grad,
                                  const float* input, int64_t n) {
  if (cpu_isa() != Isa::Avx512) return false;
  switch (kind) {
    case ActivationGrad::Silu:
      map2_f32_avx512<silu_backward16>(dst, grad, input, n);
      break;
    case ActivationGrad::Gelu:
      map2_f32_avx512<gelu_backward16>(dst, grad, input, n);
      break;
    case ActivationGrad::GeluTanh:
      map2_f32_avx512<gelu_tanh_backward16>(dst, grad, input, n);
      break;
  }
  return true;
}

bool silu_f32_simd(float* dst, const float* src, int64_t n) {
  if (cpu_isa() != Isa::Avx512) return false;
  map_f32_avx512<silu16>(dst, src, n);
  return true;
}

bool softplus_f32_simd(float* dst, const float* src, int64_t n) {
  if (cpu_isa() != Isa::Avx512) return false;
  map_f32_avx512<softplus16>(dst, src, n);
  return true;
}

bool expm1_f32_simd(float* dst, const float* src, int64_t n) {
  if (cpu_isa() != Isa::Avx512) return false;
  map_f32_avx512<expm1_16>(dst, src, n);
  return true;
}

bool sigmoid_f32_simd(float* dst, const float* src, int64_t n) {
  switch (cpu_isa()) {
    case Isa::Avx512:
      map_f32_avx512<sigmoid16>(dst, src, n);
      return true;
    case Isa::Avx2:
      sigmoid_f32_avx2(dst, src, n);
      return true;
    default:
      return false;
  }
}

bool erf_f32_simd(float* dst, const float* src, int64_t n) {
  switch (cpu_isa()) {
    case Isa::Avx512:
      map_f32_avx512<erf16>(dst, src, n);
      return true;
    case Isa::Avx2:
      map_f32_through_f64_avx2(dst, src, n, Erf4{});
      return true;
    default:
      return false;
  }
}

bool tanh_f32_simd(float* dst, const float* src, int64_t n) {
  switch (cpu_isa()) {
    case Isa::Avx512:
      map_f32_avx512<tanh16>(dst, src, n);
      return true;
    case Isa::Avx2:
      map_f32_through_f64_avx2(dst, src, n, Tanh4{});
      return true;
    default:
      return false;
  }
}

}  // namespace genesis::cpu

#else

namespace genesis::cpu {
bool exp_f32_simd(float*, const float*, int64_t) { return false; }
bool exp_f64_simd(double*, const double*, int64_t) { return false; }
bool erf_f32_simd(float*, const float*, int64_t) { return false; }
bool sigmoid_f32_simd(float*, const float*, int64_t) { return false; }
bool expm1_f32_simd(float*, const float*, int64_t) { return false; }
bool log_f32_simd(float*, const float*, int64_t) { return false; }
bool log1p_f32_simd(float*, const float*, int64_t) { return false; }
bool softplus_f32_simd(float*, const float*, int64_t) { return false; }
bool silu_f32_simd(float*, const float*, int64_t) { return false; }
bool gelu_f32_simd(float*, const float*, int64_t, bool) { return false; }
bool activation_backward_f32_simd(ActivationGrad, float*, const float*, const float*, int64_t) {
  return false;
}
bool tanh_f32_simd(float*, const float*, int64_t) { return false; }
}  // namespace genesis::cpu

#endif

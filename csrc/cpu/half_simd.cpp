#include "cpu/half_simd.h"

#include "core/half.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace genesis::cpu {

namespace {
bool has_f16c() {
  static const bool supported = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return supported;
}

__attribute__((target("avx,f16c"))) void float_to_half_f16c(uint16_t* dst, const float* src,
                                                            int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(src + i);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) dst[i] = float_to_half_bits(src[i]);
}

__attribute__((target("avx,f16c"))) void half_to_float_f16c(float* dst, const uint16_t* src,
                                                            int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = half_bits_to_float(src[i]);
}

bool has_avx2() {
  static const bool supported = __builtin_cpu_supports("avx2");
  return supported;
}

// The scalar rounding, compiled for AVX2 so the loop vectorizes (baseline x86-64 lacks the
// unsigned compares and 32 -> 16 bit packs it needs).
__attribute__((target("avx2"))) void float_to_bfloat16_avx2(uint16_t* dst, const float* src,
                                                            int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = float_to_bfloat16_bits(src[i]);
}
}  // namespace

bool float_to_half_simd(uint16_t* dst, const float* src, int64_t n) {
  if (!has_f16c()) return false;
  float_to_half_f16c(dst, src, n);
  return true;
}

bool half_to_float_simd(float* dst, const uint16_t* src, int64_t n) {
  if (!has_f16c()) return false;
  half_to_float_f16c(dst, src, n);
  return true;
}

bool float_to_bfloat16_simd(uint16_t* dst, const float* src, int64_t n) {
  if (!has_avx2()) return false;
  float_to_bfloat16_avx2(dst, src, n);
  return true;
}

}  // namespace genesis::cpu

#else

namespace genesis::cpu {
bool float_to_half_simd(uint16_t*, const float*, int64_t) { return false; }
bool half_to_float_simd(float*, const uint16_t*, int64_t) { return false; }
bool float_to_bfloat16_simd(uint16_t*, const float*, int64_t) { return false; }
}  // namespace genesis::cpu

#endif

namespace genesis::cpu {
bool widen_to_float_simd(float* dst, const uint16_t* src, int64_t n, bool bfloat16) {
  if (!bfloat16) return half_to_float_simd(dst, src, n);
  for (int64_t i = 0; i < n; ++i) dst[i] = bfloat16_bits_to_float(src[i]);
  return true;
}

bool narrow_from_float_simd(uint16_t* dst, const float* src, int64_t n, bool bfloat16) {
  return bfloat16 ? float_to_bfloat16_simd(dst, src, n) : float_to_half_simd(dst, src, n);
}
}  // namespace genesis::cpu

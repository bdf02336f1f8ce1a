#pragma once
// float <-> float16 for contiguous runs with the CPU's conversion instructions (x86 F16C), which
// round exactly as the software conversion in core/half.h but take no data-dependent branches;
// float -> bfloat16 with that conversion's code built for AVX2.
#include <cstdint>
#include <type_traits>

#include "core/half.h"
#include "core/scalar.h"

namespace genesis::cpu {

// The storage types the conversions below take (as their uint16_t bits).
template <typename T>
constexpr bool kSixteenBitFloat = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Each returns false (doing nothing) where the CPU lacks the instructions.
bool float_to_half_simd(uint16_t* dst, const float* src, int64_t n);
bool half_to_float_simd(float* dst, const uint16_t* src, int64_t n);
// float -> bfloat16 with the rounding of core/half.h (needs AVX2).
bool float_to_bfloat16_simd(uint16_t* dst, const float* src, int64_t n);
// 16-bit floats widened to float, exactly: float16 as half_to_float_simd (false where the CPU
// lacks F16C), bfloat16 by a shift (always true).
bool widen_to_float_simd(float* dst, const uint16_t* src, int64_t n, bool bfloat16);
// float rounded to 16-bit floats, as core/half.h rounds: float16 as float_to_half_simd,
// bfloat16 as float_to_bfloat16_simd (false where the CPU lacks the instructions).
bool narrow_from_float_simd(uint16_t* dst, const float* src, int64_t n, bool bfloat16);

// Elementwise ops take contiguous 16-bit runs through float this many elements at a time: the
// op then runs on plain float arrays (vectorized), where converting each element on its own
// (core/half.h's branches) would not vectorize and cost more than the op.
constexpr int64_t kSixteenBitChunk = 1024;

// 16-bit float <-> float for a chunk; the same values as cast_value, with F16C where it exists.
template <typename T>
void widen_chunk(float* dst, const T* src, int64_t n) {
  if constexpr (std::is_same_v<T, Half>)
    if (half_to_float_simd(dst, reinterpret_cast<const uint16_t*>(src), n)) return;
  for (int64_t i = 0; i < n; ++i) dst[i] = cast_value<float>(src[i]);
}
template <typename T>
void narrow_chunk(T* dst, const float* src, int64_t n) {
  if constexpr (std::is_same_v<T, Half>)
    if (float_to_half_simd(reinterpret_cast<uint16_t*>(dst), src, n)) return;
  if constexpr (std::is_same_v<T, BFloat16>)
    if (float_to_bfloat16_simd(reinterpret_cast<uint16_t*>(dst), src, n)) return;
  for (int64_t i = 0; i < n; ++i) dst[i] = cast_value<T>(src[i]);
}

}  // namespace genesis::cpu

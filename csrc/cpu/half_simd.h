#pragma once
// float <-> float16 for contiguous runs with the CPU's conversion instructions (x86 F16C), which
// round exactly as the software conversion in core/half.h but take no data-dependent branches;
// float -> bfloat16 with that conversion's code built for AVX2.
#include <cstdint>
#include <type_traits>

#include "core/half.h"

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

}  // namespace genesis::cpu

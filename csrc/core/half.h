#pragma once
// 16-bit floating point storage types for the CPU side. Conversions follow IEEE 754 binary16 and
// bfloat16 with round-to-nearest-even; NaN stays NaN (quiet).
#include <cmath>
#include <cstdint>
#include <cstring>

namespace genesis {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u |
                                 (mag > 0x7f800000u ? 0x0200u | ((mag >> 13) & 0x3ffu) : 0));
  }
  if (mag >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (mag < 0x38800000u) {                                               // subnormal or zero
    // Add 0.5 (as a float) so that the FPU rounds the mantissa into the subnormal position.
    float m = bits_float(mag) + 0.5f;
    return static_cast<uint16_t>(sign | (float_bits(m) - 0x3f000000u));
  }
  uint32_t odd = (mag >> 13) & 1u;
  mag += 0xc8000fffu + odd;  // rebias exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (mag >> 13));
}

inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    // subnormal: value = man * 2^-24
    float v = static_cast<float>(man) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

inline float bfloat16_bits_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

// double -> float rounded to odd: a float that is exact, or else has its last bit set. Rounding
// that float to 16 bits then gives the correctly rounded result of the double (NumPy's answer),
// which plain double -> float -> 16-bit rounding (twice to nearest) sometimes misses.
inline float double_to_float_round_odd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || f != f) return f;
  uint32_t bits = float_bits(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) --bits;  // toward zero (same sign)
  return bits_float(bits | 1u);
}

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(float_to_half_bits(f)) {}
  explicit Half(double d) : bits(float_to_half_bits(double_to_float_round_odd(d))) {}
  operator float() const { return half_bits_to_float(bits); }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(float_to_bfloat16_bits(f)) {}
  explicit BFloat16(double d) : bits(float_to_bfloat16_bits(double_to_float_round_odd(d))) {}
  operator float() const { return bfloat16_bits_to_float(bits); }
};

}  // namespace genesis

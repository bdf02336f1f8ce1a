#pragma once
// Note [Sort keys]: every sort, selection and unique works on unsigned integer keys whose
// unsigned order is the order genesis sorts values in, so the CPU and CUDA backends agree bit for
// bit and CUDA can use CUB's radix sorts. The order is PyTorch's: integers and bool as numbers;
// floats by value with -0.0 equal to +0.0 (a stable sort keeps them in input order) and every
// NaN, whatever its sign or payload, after +inf (so an ascending sort ends with the NaNs and a
// descending one starts with them). Sorted values are decoded from the sorted keys, except a
// float zero or NaN key, whose value is read back from the input through its sorted index
// (Note [Values from keys]), so a -0.0 or a NaN payload comes out as it went in.
#include <cstdint>

#include "vocab/host_device.h"

namespace genesis::vocab {

// Two's complement integers: flipping the sign bit maps them in order onto unsigned ones.
template <typename U>
GENESIS_HD U signed_key(U bits) {
  return static_cast<U>(bits ^ (U(1) << (sizeof(U) * 8 - 1)));
}

// IEEE floats given as their bits; `inf_bits` is +inf's pattern. Negative values flip every bit
// (larger magnitude, smaller key), non-negative ones set the sign bit.
template <typename U>
GENESIS_HD U float_key(U bits, U inf_bits) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  U magnitude = static_cast<U>(bits & ~sign);
  if (magnitude > inf_bits) return static_cast<U>(~U(0));  // NaN: after everything
  if (magnitude == 0) return sign;                         // -0.0 sorts as +0.0
  return (bits & sign) ? static_cast<U>(~bits) : static_cast<U>(bits | sign);
}

// How a dtype's bits become a key: as they are (bool, uint8), sign-flipped, or as a float.
enum class KeyKind : int { Unsigned, Signed, Float };

// +inf's bit pattern for the float widths (float16, bfloat16 share 2 bytes: pass it explicitly).
constexpr uint16_t kHalfInfBits = 0x7c00;
constexpr uint16_t kBFloat16InfBits = 0x7f80;
constexpr uint32_t kFloatInfBits = 0x7f800000u;
constexpr uint64_t kDoubleInfBits = 0x7ff0000000000000ull;

// The key of one value of storage bits `bits`, for a dtype of kind `kind` and +inf pattern
// `inf_bits` (floats only).
template <typename U>
GENESIS_HD U sort_key(U bits, KeyKind kind, U inf_bits) {
  if (kind == KeyKind::Signed) return signed_key(bits);
  if (kind == KeyKind::Float) return float_key(bits, inf_bits);
  return bits;
}

}  // namespace genesis::vocab

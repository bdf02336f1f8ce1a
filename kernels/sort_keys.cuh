#pragma once
// The keys of Note [Sort keys] (vocab/sort_keys.h) for the kernels: a dtype code's key format and
// a dispatch over the key widths.
#include <cstdint>

#include "kernels/dtype_traits.cuh"
#include "vocab/sort_keys.h"

namespace genesis::kernels {

template <typename U>
struct KeyFormat {
  vocab::KeyKind kind;
  U inf_bits;
};

template <typename U>
__device__ __forceinline__ U key_of(U bits, const KeyFormat<U>& format) {
  return vocab::sort_key(bits, format.kind, format.inf_bits);
}

// Calls f(KeyFormat<U>{...}) for dtype code `dtype` and returns what it returns.
template <typename F>
auto with_key_format(int dtype, const F& f) {
  using vocab::KeyKind;
  switch (dtype) {
    case kBool:
    case kUInt8:
      return f(KeyFormat<uint8_t>{KeyKind::Unsigned, 0});
    case kInt8:
      return f(KeyFormat<uint8_t>{KeyKind::Signed, 0});
    case kInt16:
      return f(KeyFormat<uint16_t>{KeyKind::Signed, 0});
    case kInt32:
      return f(KeyFormat<uint32_t>{KeyKind::Signed, 0});
    case kInt64:
      return f(KeyFormat<uint64_t>{KeyKind::Signed, 0});
    case kFloat16:
      return f(KeyFormat<uint16_t>{KeyKind::Float, vocab::kHalfInfBits});
    case kBFloat16:
      return f(KeyFormat<uint16_t>{KeyKind::Float, vocab::kBFloat16InfBits});
    case kFloat32:
      return f(KeyFormat<uint32_t>{KeyKind::Float, vocab::kFloatInfBits});
    default:
      return f(KeyFormat<uint64_t>{KeyKind::Float, vocab::kDoubleInfBits});
  }
}

}  // namespace genesis::kernels

#pragma once
// The keys of Note [Sort keys] (vocab/sort_keys.h) for the CPU loops: a dtype's key format, and
// a dispatch that runs a loop with U the dtype's width as an unsigned type.
#include <cstdint>
#include <cstring>

#include "core/errors.h"
#include "core/scalar_type.h"
#include "vocab/sort_keys.h"

namespace genesis::cpu {

template <typename U>
struct KeyFormat {
  vocab::KeyKind kind;
  U inf_bits;
};

template <typename U>
inline U key_of(U bits, const KeyFormat<U>& format) {
  return vocab::sort_key(bits, format.kind, format.inf_bits);
}

// Calls f(KeyFormat<U>{...}) for `dtype`.
template <typename F>
void with_key_format(ScalarType dtype, const char* op, const F& f) {
  using vocab::KeyKind;
  switch (dtype) {
    case ScalarType::Bool:
    case ScalarType::UInt8:
      return f(KeyFormat<uint8_t>{KeyKind::Unsigned, 0});
    case ScalarType::Int8:
      return f(KeyFormat<uint8_t>{KeyKind::Signed, 0});
    case ScalarType::Int16:
      return f(KeyFormat<uint16_t>{KeyKind::Signed, 0});
    case ScalarType::Int32:
      return f(KeyFormat<uint32_t>{KeyKind::Signed, 0});
    case ScalarType::Int64:
      return f(KeyFormat<uint64_t>{KeyKind::Signed, 0});
    case ScalarType::Float16:
      return f(KeyFormat<uint16_t>{KeyKind::Float, vocab::kHalfInfBits});
    case ScalarType::BFloat16:
      return f(KeyFormat<uint16_t>{KeyKind::Float, vocab::kBFloat16InfBits});
    case ScalarType::Float32:
      return f(KeyFormat<uint32_t>{KeyKind::Float, vocab::kFloatInfBits});
    case ScalarType::Float64:
      return f(KeyFormat<uint64_t>{KeyKind::Float, vocab::kDoubleInfBits});
  }
  GENESIS_FAIL(ErrorKind::Type, op, "unsupported dtype");
}

// The key of item j of a row of U-wide items.
template <typename U>
U key_at(const unsigned char* row, int64_t j, const KeyFormat<U>& format) {
  U bits;
  std::memcpy(&bits, row + j * static_cast<int64_t>(sizeof(U)), sizeof(U));
  return key_of(bits, format);
}

// A (key, position) pair packed into one integer (Note [Packed sort] in cpu/sort.cpp): key at
// most 32 bits, position below 2^32; integer order is (key, position) order.
template <typename U>
uint64_t packed_pair(U key, int64_t position) {
  return (uint64_t(key) << 32) | uint64_t(position);
}

// ceil(log2(n)), at least 1: the depth of a binary search or the log factor of a sort.
inline int64_t log2_ceil(int64_t n) {
  int64_t bits = 1;
  while (bits < 62 && (int64_t{1} << bits) < n) ++bits;
  return bits;
}

}  // namespace genesis::cpu

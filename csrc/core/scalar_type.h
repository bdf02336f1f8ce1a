#pragma once
// The element types genesis stores, their sizes and PyTorch's type promotion.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/half.h"

namespace genesis {

enum class ScalarType : int8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
};
constexpr int kNumScalarTypes = 10;

size_t itemsize(ScalarType t);
const char* scalar_type_name(ScalarType t);  // "float32"
bool is_floating_point(ScalarType t);
bool is_integral(ScalarType t, bool include_bool);
bool is_signed(ScalarType t);
// float16 and bfloat16: stored in 16 bits, computed in float32 by genesis's kernels.
bool is_16_bit_float(ScalarType t);
// The largest finite value of a floating dtype; float64's for the other dtypes.
double largest_finite(ScalarType t);

// Category-first promotion (bool < integer < floating), as PyTorch's promote_types.
ScalarType promote_types(ScalarType a, ScalarType b);

// Parses "float32", "float", "half", "long", ... ; raises TypeError for an unknown name.
ScalarType parse_scalar_type(const std::string& name);

// The float dtype of values that bring none of their own (Python floats, float factories without
// dtype=, integer division): float32 unless genesis.set_default_dtype changed it (process-wide,
// as in PyTorch).
ScalarType default_float();
void set_default_float(ScalarType t);

// Maps a C++ storage type to its ScalarType and back; used by the typed dispatch.
template <typename T>
struct scalar_type_of;
#define GENESIS_SCALAR_TYPE_OF(T, S)                   \
  template <>                                          \
  struct scalar_type_of<T> {                           \
    static constexpr ScalarType value = ScalarType::S; \
  };
GENESIS_SCALAR_TYPE_OF(bool, Bool)
GENESIS_SCALAR_TYPE_OF(uint8_t, UInt8)
GENESIS_SCALAR_TYPE_OF(int8_t, Int8)
GENESIS_SCALAR_TYPE_OF(int16_t, Int16)
GENESIS_SCALAR_TYPE_OF(int32_t, Int32)
GENESIS_SCALAR_TYPE_OF(int64_t, Int64)
GENESIS_SCALAR_TYPE_OF(Half, Float16)
GENESIS_SCALAR_TYPE_OF(BFloat16, BFloat16)
GENESIS_SCALAR_TYPE_OF(float, Float32)
GENESIS_SCALAR_TYPE_OF(double, Float64)
#undef GENESIS_SCALAR_TYPE_OF

}  // namespace genesis

// GENESIS_DISPATCH_ALL_TYPES(type, "op", [&] { use scalar_t; }) runs the lambda with scalar_t
// bound to the C++ storage type of `type`.
#define GENESIS_DISPATCH_CASE_(S, T, ...) \
  case ::genesis::ScalarType::S: {        \
    using scalar_t = T;                   \
    return __VA_ARGS__();                 \
  }
#define GENESIS_DISPATCH_ALL_TYPES(TYPE, OP, ...)                        \
  [&] {                                                                  \
    switch (TYPE) {                                                      \
      GENESIS_DISPATCH_CASE_(Bool, bool, __VA_ARGS__)                    \
      GENESIS_DISPATCH_CASE_(UInt8, uint8_t, __VA_ARGS__)                \
      GENESIS_DISPATCH_CASE_(Int8, int8_t, __VA_ARGS__)                  \
      GENESIS_DISPATCH_CASE_(Int16, int16_t, __VA_ARGS__)                \
      GENESIS_DISPATCH_CASE_(Int32, int32_t, __VA_ARGS__)                \
      GENESIS_DISPATCH_CASE_(Int64, int64_t, __VA_ARGS__)                \
      GENESIS_DISPATCH_CASE_(Float16, ::genesis::Half, __VA_ARGS__)      \
      GENESIS_DISPATCH_CASE_(BFloat16, ::genesis::BFloat16, __VA_ARGS__) \
      GENESIS_DISPATCH_CASE_(Float32, float, __VA_ARGS__)                \
      GENESIS_DISPATCH_CASE_(Float64, double, __VA_ARGS__)               \
    }                                                                    \
    GENESIS_FAIL(::genesis::ErrorKind::Type, OP, "unsupported dtype");   \
  }()

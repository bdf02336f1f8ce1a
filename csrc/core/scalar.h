#pragma once
// Scalar: one Python-free number (bool, integer or floating) and its conversion to any dtype.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/scalar_type.h"

namespace genesis {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float };
  Scalar() : kind_(Kind::Int), i_(0) {}
  explicit Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  explicit Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  explicit Scalar(double v) : kind_(Kind::Float), d_(v) {}

  Kind kind() const { return kind_; }
  bool is_floating() const { return kind_ == Kind::Float; }
  double to_double() const { return kind_ == Kind::Float ? d_ : static_cast<double>(i_); }
  int64_t to_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(d_) : i_; }

  // The dtype a tensor made from this scalar alone gets: bool, int64 or the default float.
  ScalarType default_dtype() const;

  template <typename T>
  T to() const;

  // Raises RuntimeError "[op] value ... cannot be converted to <dtype> without overflow" when the
  // value is out of the dtype's range (as PyTorch does), or NaN/inf for an integer dtype.
  void check_fits(ScalarType dtype, const char* op) const;

  // The value converted to `dtype`, as the bytes of one element (a fill pattern).
  uint64_t bit_pattern(ScalarType dtype) const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

// Converts one value to another storage type with C++ cast semantics; 16-bit floats go through
// float, and anything non-zero is true.
template <typename To, typename From>
inline To cast_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return cast_value<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr ((std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) &&
                       (std::is_same_v<From, double> || std::is_same_v<From, int64_t>)) {
    return To(static_cast<double>(v));  // one correct rounding, not two
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <typename T>
T Scalar::to() const {
  switch (kind_) {
    case Kind::Bool:
      return cast_value<T>(i_ != 0);
    case Kind::Int:
      return cast_value<T>(i_);
    case Kind::Float:
      return cast_value<T>(d_);
  }
  return T();
}

// v rounded to the floating point dtype `dt` (exactly representable as a double); other dtypes
// leave it as it is.
double round_to_dtype(double v, ScalarType dt);

}  // namespace genesis

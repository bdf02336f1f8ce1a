#include "core/scalar.h"

#include <cmath>
#include <limits>

#include "core/errors.h"

namespace genesis {

ScalarType Scalar::default_dtype() const {
  switch (kind_) {
    case Kind::Bool:
      return ScalarType::Bool;
    case Kind::Int:
      return ScalarType::Int64;
    case Kind::Float:
      return default_float();
  }
  return default_float();
}

void Scalar::check_fits(ScalarType dtype, const char* op) const {
  if (dtype == ScalarType::Bool || kind_ == Kind::Bool) return;
  GENESIS_DISPATCH_ALL_TYPES(dtype, op, [&] {
    double lowest, highest;
    if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
      highest = largest_finite(dtype), lowest = -highest;
    } else {
      lowest = static_cast<double>(std::numeric_limits<scalar_t>::lowest());
      highest = static_cast<double>(std::numeric_limits<scalar_t>::max());
    }
    bool fits;
    if (kind_ == Kind::Int && std::is_integral_v<scalar_t>) {
      fits = i_ >= static_cast<int64_t>(lowest) &&
             (highest >= 9.2e18 || i_ <= static_cast<int64_t>(highest));
    } else if (kind_ == Kind::Int) {
      fits = true;  // every int64 is within a float type's range
    } else if (std::isnan(d_) || std::isinf(d_)) {
      fits = is_floating_point(dtype);
    } else {
      fits = d_ >= lowest && d_ <= highest;
      if (std::is_integral_v<scalar_t> && highest >= 9.2e18)
        fits = d_ >= -9.2233720368547758e18 && d_ < 9.2233720368547758e18;
    }
    if (!fits)
      GENESIS_FAIL(ErrorKind::Runtime, op, "value ", kind_ == Kind::Int ? str_cat(i_) : str_cat(d_),
                   " cannot be converted to ", scalar_type_name(dtype), " without overflow");
  });
}

uint64_t Scalar::bit_pattern(ScalarType dtype) const {
  uint64_t pattern = 0;
  GENESIS_DISPATCH_ALL_TYPES(dtype, "fill", [&] {
    scalar_t value = to<scalar_t>();
    std::memcpy(&pattern, &value, sizeof(scalar_t));
  });
  return pattern;
}

double round_to_dtype(double v, ScalarType dt) {
  switch (dt) {
    case ScalarType::Float32:
      return static_cast<float>(v);
    case ScalarType::Float16:
      return cast_value<double>(cast_value<Half>(v));
    case ScalarType::BFloat16:
      return cast_value<double>(cast_value<BFloat16>(v));
    default:
      return v;
  }
}

}  // namespace genesis

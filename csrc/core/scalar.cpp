#include "core/scalar.h"

#include "core/errors.h"

namespace genesis {

ScalarType Scalar::default_dtype() const {
  switch (kind_) {
    case Kind::Bool:
      return ScalarType::Bool;
    case Kind::Int:
      return ScalarType::Int64;
    case Kind::Float:
      return kDefaultFloat;
  }
  return kDefaultFloat;
}

uint64_t Scalar::bit_pattern(ScalarType dtype) const {
  uint64_t pattern = 0;
  GENESIS_DISPATCH_ALL_TYPES(dtype, "fill", [&] {
    scalar_t value = to<scalar_t>();
    std::memcpy(&pattern, &value, sizeof(scalar_t));
  });
  return pattern;
}

}  // namespace genesis

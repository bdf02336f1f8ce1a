#include "core/scalar_type.h"

#include <atomic>
#include <unordered_map>

#include "core/errors.h"

namespace genesis {

namespace {
struct TypeInfo {
  const char* name;
  size_t itemsize;
  bool floating;
  bool integral;
  bool is_signed;
};
constexpr TypeInfo kInfo[kNumScalarTypes] = {
    {"bool", 1, false, false, false},  {"uint8", 1, false, true, false},
    {"int8", 1, false, true, true},    {"int16", 2, false, true, true},
    {"int32", 4, false, true, true},   {"int64", 8, false, true, true},
    {"float16", 2, true, false, true}, {"bfloat16", 2, true, false, true},
    {"float32", 4, true, false, true}, {"float64", 8, true, false, true},
};
const TypeInfo& info(ScalarType t) { return kInfo[static_cast<int>(t)]; }
}  // namespace

size_t itemsize(ScalarType t) { return info(t).itemsize; }
const char* scalar_type_name(ScalarType t) { return info(t).name; }
bool is_floating_point(ScalarType t) { return info(t).floating; }
bool is_integral(ScalarType t, bool include_bool) {
  return info(t).integral || (include_bool && t == ScalarType::Bool);
}
bool is_signed(ScalarType t) { return info(t).is_signed; }

bool is_16_bit_float(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }

double largest_finite(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return 65504.0;
    case ScalarType::BFloat16:
      return 3.3895313892515355e38;
    case ScalarType::Float32:
      return 3.4028234663852886e38;
    default:
      return 1.7976931348623157e308;
  }
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  bool fa = is_floating_point(a), fb = is_floating_point(b);
  if (fa != fb) return fa ? a : b;  // a float wins over any integer
  if (fa) {
    // float16 with bfloat16 has no common 16-bit type: both fit in float32.
    if ((a == S::Float16 && b == S::BFloat16) || (a == S::BFloat16 && b == S::Float16))
      return S::Float32;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  // Both integers. uint8 with a signed type needs a signed type wider than 8 bits.
  if (a == S::UInt8 || b == S::UInt8) {
    S other = a == S::UInt8 ? b : a;
    return other == S::Int8 ? S::Int16 : other;
  }
  return itemsize(a) >= itemsize(b) ? a : b;
}

ScalarType parse_scalar_type(const std::string& name) {
  static const std::unordered_map<std::string, ScalarType> names = {
      {"bool", ScalarType::Bool},       {"uint8", ScalarType::UInt8},
      {"int8", ScalarType::Int8},       {"int16", ScalarType::Int16},
      {"short", ScalarType::Int16},     {"int32", ScalarType::Int32},
      {"int", ScalarType::Int32},       {"int64", ScalarType::Int64},
      {"long", ScalarType::Int64},      {"float16", ScalarType::Float16},
      {"half", ScalarType::Float16},    {"bfloat16", ScalarType::BFloat16},
      {"float32", ScalarType::Float32}, {"float", ScalarType::Float32},
      {"float64", ScalarType::Float64}, {"double", ScalarType::Float64},
  };
  std::string key = name;
  if (key.rfind("genesis.", 0) == 0) key = key.substr(8);
  auto it = names.find(key);
  GENESIS_CHECK_TYPE(it != names.end(), "dtype", "unknown dtype '", name,
                     "'; expected one of bool, uint8, int8, int16, int32, int64, float16, "
                     "bfloat16, float32, float64");
  return it->second;
}

namespace {
std::atomic<ScalarType> g_default_float{ScalarType::Float32};
}  // namespace

ScalarType default_float() { return g_default_float.load(std::memory_order_relaxed); }

void set_default_float(ScalarType t) {
  GENESIS_CHECK_TYPE(is_floating_point(t), "set_default_dtype",
                     "only floating point types are supported as the default type, got ",
                     scalar_type_name(t));
  g_default_float.store(t, std::memory_order_relaxed);
}

}  // namespace genesis

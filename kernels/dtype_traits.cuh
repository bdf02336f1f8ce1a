#pragma once
// Device-side storage types for genesis dtypes, and one conversion between any two of them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace genesis::kernels {

// ScalarType codes, in core/scalar_type.h's order.
enum DtypeCode : int {
  kBool = 0,
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64
};

template <typename T>
__device__ __forceinline__ double to_double(T v) {
  if constexpr (std::is_same_v<T, __half>)
    return static_cast<double>(__half2float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<double>(__bfloat162float(v));
  else
    return static_cast<double>(v);
}

// Converts as the CPU backend does: through float for 16-bit inputs, with one correct rounding
// into 16-bit outputs, nonzero -> true for bool.
template <typename To, typename From>
__device__ __forceinline__ To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, __half>) {
    return convert<To>(__half2float(v));
  } else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    return convert<To>(__bfloat162float(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, __half>) {
    if constexpr (std::is_same_v<From, float>)
      return __float2half_rn(v);
    else
      return __double2half(static_cast<double>(v));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    if constexpr (std::is_same_v<From, float>)
      return __float2bfloat16_rn(v);
    else
      return __double2bfloat16(static_cast<double>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Calls f(T{}) with T the device type of `code`.
template <typename F>
__host__ void dispatch_dtype(int code, F&& f) {
  switch (code) {
    case kBool:
      return f(bool{});
    case kUInt8:
      return f(uint8_t{});
    case kInt8:
      return f(int8_t{});
    case kInt16:
      return f(int16_t{});
    case kInt32:
      return f(int32_t{});
    case kInt64:
      return f(int64_t{});
    case kFloat16:
      return f(__half{});
    case kBFloat16:
      return f(__nv_bfloat16{});
    case kFloat32:
      return f(float{});
    case kFloat64:
      return f(double{});
  }
}

// Calls f(T{}, C{}) for the floating dtype `code`: T its device type, C the type it is computed
// in (float for the 16-bit types); other codes call nothing (the caller checked the dtype).
template <typename F>
__host__ void dispatch_floating(int code, F&& f) {
  switch (code) {
    case kFloat16:
      return f(__half{}, float{});
    case kBFloat16:
      return f(__nv_bfloat16{}, float{});
    case kFloat32:
      return f(float{}, float{});
    case kFloat64:
      return f(double{}, double{});
    default:
      return;
  }
}

}  // namespace genesis::kernels

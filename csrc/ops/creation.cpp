#include "ops/creation.h"

#include <cmath>

#include "core/errors.h"
#include "core/memory_events.h"
#include "cpu/parallel.h"
#include "cuda/fill.h"
#include "cuda/runtime.h"
#include "ops/convert.h"
#include "ops/copy.h"

namespace genesis::ops {

Tensor full(const Shape& sizes, const Scalar& value, ScalarType dtype, Device device,
            const char* op) {
  value.check_fits(dtype, op);
  if (value.to_double() == 0.0 && !std::signbit(value.to_double()) && device.is_cpu()) {
    // All-zero bits: the allocator may hand out memory that is zero already.
    int64_t n = checked_numel(sizes, op);
    auto bytes = static_cast<size_t>(checked_nbytes(n, static_cast<int64_t>(itemsize(dtype)), op));
    bool zero_already = false;
    DataPtr zeroed = [&] {
      // Note [Tensor shapes of memory events]; pinned tensors have no zeroed memory (an empty
      // DataPtr), so they take the fill below (Note [Pinned CPU tensors]).
      ScopedTensorAllocation named(sizes.data(), sizes.size(), static_cast<int8_t>(dtype));
      return allocator_for(kCPU)->allocate_zeroed(bytes, zero_already);
    }();
    if (zeroed.get() != nullptr) {
      Tensor out(Storage::own(std::move(zeroed), bytes), sizes, contiguous_strides(sizes), 0,
                 dtype);
      if (!zero_already) fill_(out, value, op);  // a reused block (Note [Host block cache])
      return out;
    }
  }
  Tensor out = Tensor::empty(sizes, dtype, device);
  fill_(out, value, op);
  return out;
}

ScalarType arange_dtype(const Scalar& start, const Scalar& end, const Scalar& step) {
  bool floating = start.is_floating() || end.is_floating() || step.is_floating();
  return floating ? default_float() : ScalarType::Int64;
}

namespace {
// Values are made on the host and moved once; sequences are cheap next to their transfer.
template <typename Value>
Tensor host_sequence(int64_t n, ScalarType dtype, Device device, const Value& value_at) {
  Tensor host = Tensor::empty({n}, dtype, kCPU);
  GENESIS_DISPATCH_ALL_TYPES(dtype, "arange", [&] {
    scalar_t* out = host.mutable_data_as<scalar_t>();
    cpu::parallel_for(n, cpu::kDefaultGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = value_at.template operator()<scalar_t>(i);
    });
  });
  return device.is_cpu() ? host : to(host, dtype, device, false);
}
// The same sequences computed on the GPU, in int64 or float64, then cast once.
Tensor device_sequence(int64_t n, ScalarType dtype, Device device, bool integral,
                       const Scalar& start, const Scalar& step, int64_t half) {
  device = cuda::resolve(device);
  ScalarType wide_type = integral ? ScalarType::Int64 : ScalarType::Float64;
  Tensor wide = Tensor::empty({n}, wide_type, device);
  if (integral)
    cuda::sequence_i64(wide, start.to_int(), step.to_int());
  else
    cuda::sequence_f64(wide, start.to_double(), step.to_double(), 0.0, half);
  return dtype == wide_type ? wide : copy_to(wide, dtype, device);
}

}  // namespace

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype,
              Device device) {
  GENESIS_CHECK_TYPE(dtype != ScalarType::Bool, "arange", "not implemented for dtype bool");
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  GENESIS_CHECK_VALUE(std::isfinite(s) && std::isfinite(e), "arange", "unsupported range: ", s,
                      " -> ", e);
  GENESIS_CHECK_VALUE(st != 0, "arange", "step must be nonzero");
  GENESIS_CHECK_VALUE((st > 0 && e >= s) || (st < 0 && e <= s), "arange",
                      "upper bound and lower bound inconsistent with step sign");
  bool integral = !start.is_floating() && !end.is_floating() && !step.is_floating();
  int64_t n;
  if (integral) {
    // In unsigned arithmetic: b - a of two int64s, and -k, may not fit int64.
    int64_t a = start.to_int(), b = end.to_int(), k = step.to_int();
    uint64_t span = k > 0 ? static_cast<uint64_t>(b) - static_cast<uint64_t>(a)
                          : static_cast<uint64_t>(a) - static_cast<uint64_t>(b);
    uint64_t stride = k > 0 ? static_cast<uint64_t>(k) : 0 - static_cast<uint64_t>(k);
    uint64_t count = span / stride + (span % stride != 0);
    GENESIS_CHECK_VALUE(count <= static_cast<uint64_t>(INT64_MAX), "arange", "the range ", a,
                        " -> ", b, " in steps of ", k, " has too many elements");
    n = static_cast<int64_t>(count);
  } else {
    double count = std::ceil((e - s) / st);
    // 2^63 as a double: a larger count cannot be a size (and the cast would be undefined).
    GENESIS_CHECK_VALUE(count < 9223372036854775808.0, "arange", "the range ", s, " -> ", e,
                        " in steps of ", st, " has too many elements");
    n = static_cast<int64_t>(count);
  }
  if (device.is_cuda())
    return device_sequence(n, dtype, device, integral && !is_floating_point(dtype), start, step, n);
  if (integral && !is_floating_point(dtype)) {
    int64_t a = start.to_int(), k = step.to_int();
    return host_sequence(n, dtype, device,
                         [a, k]<typename T>(int64_t i) { return cast_value<T>(a + i * k); });
  }
  return host_sequence(n, dtype, device, [s, st]<typename T>(int64_t i) {
    return cast_value<T>(s + static_cast<double>(i) * st);
  });
}

Tensor linspace(double start, double end, int64_t steps, ScalarType dtype, Device device) {
  GENESIS_CHECK_VALUE(steps >= 0, "linspace", "number of steps must be non-negative, got ", steps);
  double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  int64_t half = (steps + 1) / 2;
  if (device.is_cuda()) {
    Tensor wide = Tensor::empty({steps}, ScalarType::Float64, device);
    cuda::sequence_f64(wide, start, step, end, half);
    return dtype == ScalarType::Float64 ? wide : copy_to(wide, dtype, device);
  }
  // Fill from both ends so that the first and last values are exactly start and end.
  return host_sequence(steps, dtype, device, [=]<typename T>(int64_t i) {
    double v = i < half ? start + step * static_cast<double>(i)
                        : end - step * static_cast<double>(steps - 1 - i);
    return cast_value<T>(v);
  });
}

Tensor eye(int64_t n, int64_t m, ScalarType dtype, Device device) {
  GENESIS_CHECK_VALUE(n >= 0, "eye", "n must be non-negative, got ", n);
  GENESIS_CHECK_VALUE(m >= 0, "eye", "m must be non-negative, got ", m);
  Tensor out = full({n, m}, Scalar(int64_t{0}), dtype, device);
  int64_t diag = std::min(n, m);
  if (diag > 0) fill_(out.as_strided({diag}, {m + 1}, 0), Scalar(int64_t{1}));
  return out;
}

}  // namespace genesis::ops

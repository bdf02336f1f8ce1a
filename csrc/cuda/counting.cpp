#include "cuda/counting.h"

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "kernels/count.cuh"

namespace genesis::cuda {

namespace {

void check_values(const Tensor& values, const Tensor& out) {
  GENESIS_CHECK(values.is_cuda() && values.is_contiguous() && values.ndim() == 1 &&
                    (values.dtype() == ScalarType::Int64 || values.dtype() == ScalarType::Int32) &&
                    out.device() == values.device() && out.is_contiguous() &&
                    out.dtype() == ScalarType::Int64,
                "bincount",
                "expected contiguous int32/int64 values and int64 results on one device");
}

}  // namespace

void value_range(const Tensor& values, const Tensor& range) {
  check_values(values, range);
  GENESIS_CHECK(values.numel() > 0 && range.numel() == 2, "bincount",
                "expected nonempty values and a range of 2 items");
  int device = values.device().index;
  DeviceGuard guard(device);
  int sms = multiprocessor_count(device);
  Tensor partials = Tensor::empty(Shape{2 * kernels::value_range_blocks(values.numel(), sms)},
                                  ScalarType::Int64, values.device());
  kernels::launch_value_range(values.data(), values.dtype() == ScalarType::Int64, values.numel(),
                              partials.mutable_data_as<int64_t>(), range.mutable_data_as<int64_t>(),
                              sms, reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void count_values(const Tensor& values, const Tensor& counts) {
  check_values(values, counts);
  if (values.numel() == 0 || counts.numel() == 0) return;
  int device = values.device().index;
  DeviceGuard guard(device);
  kernels::launch_count_values(values.data(), values.dtype() == ScalarType::Int64, values.numel(),
                               counts.mutable_data_as<int64_t>(), counts.numel(),
                               multiprocessor_count(device),
                               reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

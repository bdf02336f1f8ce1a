#include "cuda/normalization.h"

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "kernels/normalization.cuh"

namespace genesis::cuda {

namespace {

const void* data_or_null(const Tensor& t) { return t.defined() ? t.data() : nullptr; }
void* mutable_or_null(const Tensor& t) { return t.defined() ? t.mutable_data() : nullptr; }

}  // namespace

void row_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                      bool rms, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  if (x.numel() == 0) return;
  int64_t cols = x.sizes().back(), rows = x.numel() / cols;
  int device = x.device().index;
  DeviceGuard guard(device);
  kernels::launch_row_norm_forward(static_cast<int>(x.dtype()), x.data(), data_or_null(weight),
                                   data_or_null(bias), out.mutable_data(), mutable_or_null(mean),
                                   rstd.mutable_data(), rows, cols, eps, rms,
                                   reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void row_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                       const Tensor& weight, bool rms, const Tensor& grad_input,
                       const Tensor& addend, const Tensor& grad_weight, const Tensor& grad_bias) {
  int64_t cols = x.sizes().back(), rows = x.numel() / cols;
  int device = x.device().index;
  DeviceGuard guard(device);
  int dtype = static_cast<int>(x.dtype()), grad_dtype = static_cast<int>(grad.dtype());
  int64_t blocks = kernels::row_norm_backward_blocks(
      dtype, grad_dtype, grad.data(), x.data(), data_or_null(weight), data_or_null(grad_input),
      data_or_null(addend), rows, cols, rms, multiprocessor_count(device));
  ScalarType compute = x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Tensor workspace = Tensor::empty(Shape{2 * blocks * cols}, compute, x.device());
  kernels::launch_row_norm_backward(
      dtype, grad_dtype, grad.data(), x.data(), data_or_null(mean), rstd.data(),
      data_or_null(weight), mutable_or_null(grad_input), data_or_null(addend),
      mutable_or_null(grad_weight), mutable_or_null(grad_bias), workspace.mutable_data(), blocks,
      rows, cols, rms, reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

#include "cuda/group_norm.h"

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/group_norm.cuh"

namespace genesis::cuda {

namespace {

const void* data_or_null(const Tensor& t) { return t.defined() ? t.data() : nullptr; }
void* mutable_or_null(const Tensor& t) { return t.defined() ? t.mutable_data() : nullptr; }

struct RowShape {
  int64_t rows, per, spatial;
};

// x is (N, C, *spatial): N * groups rows of C / groups channels.
RowShape row_shape(const Tensor& x, int64_t groups) {
  int64_t n = x.sizes()[0], c = x.sizes()[1];
  return {n * groups, c / groups, c == 0 || n == 0 ? 0 : x.numel() / (n * c)};
}

}  // namespace

void group_norm_forward(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                        double eps, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  if (x.numel() == 0) return;
  RowShape s = row_shape(x, groups);
  int device = x.device().index;
  DeviceGuard guard(device);
  kernels::launch_group_norm_forward(static_cast<int>(x.dtype()), x.data(), data_or_null(weight),
                                     data_or_null(bias), out.mutable_data(), mean.mutable_data(),
                                     rstd.mutable_data(), s.rows, groups, s.per, s.spatial, eps,
                                     reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void group_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& rstd, const Tensor& weight, int64_t groups,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias) {
  if (x.numel() == 0) return;
  RowShape s = row_shape(x, groups);
  int device = x.device().index;
  DeviceGuard guard(device);
  ScalarType compute = x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Tensor partial = Tensor::empty(Shape{2 * s.rows * s.per}, compute, x.device());
  kernels::launch_group_norm_backward(
      static_cast<int>(x.dtype()), grad.data(), x.data(), mean.data(), rstd.data(),
      data_or_null(weight), mutable_or_null(grad_input), mutable_or_null(grad_weight),
      mutable_or_null(grad_bias), partial.mutable_data(), s.rows, groups, s.per, s.spatial,
      reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

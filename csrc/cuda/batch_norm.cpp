#include "cuda/batch_norm.h"

#include <initializer_list>

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "kernels/batch_norm.cuh"

namespace genesis::cuda {

namespace {

kernels::ChannelDims dims_of(const Tensor& x, bool rows) {
  int64_t s = 1;
  for (int64_t d = 2; d < x.ndim(); ++d) s *= x.sizes()[d];
  return kernels::ChannelDims{x.sizes()[0], x.sizes()[1], s, rows};
}

// The dtype of the first defined parameter, else x's.
int param_dtype(const Tensor& x, std::initializer_list<const Tensor*> params) {
  for (const Tensor* p : params)
    if (p->defined()) return static_cast<int>(p->dtype());
  return static_cast<int>(x.dtype());
}

const void* data_or_null(const Tensor& t) { return t.defined() ? t.data() : nullptr; }
void* mutable_or_null(const Tensor& t) { return t.defined() ? t.mutable_data() : nullptr; }
void* stream_for(int device) { return reinterpret_cast<void*>(current_stream(device)); }

Tensor workspace_for(const Tensor& x, int64_t parts) {
  ScalarType compute = x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  int64_t c = x.sizes()[1];
  return Tensor::empty(Shape{c * parts * 2 + c * 3}, compute, x.device());
}

}  // namespace

void batch_norm_stats(const Tensor& x, double eps, double momentum, const Tensor& mean,
                      const Tensor& invstd, const Tensor& running_mean, const Tensor& running_var,
                      bool rows) {
  int device = x.device().index;
  DeviceGuard guard(device);
  kernels::ChannelDims d = dims_of(x, rows);
  int64_t parts = kernels::batch_norm_parts(d, multiprocessor_count(device));
  Tensor workspace = workspace_for(x, parts);
  kernels::launch_batch_norm_stats(
      static_cast<int>(x.dtype()), param_dtype(x, {&running_mean}), x.data(), d, parts,
      workspace.mutable_data(), eps, momentum, mean.mutable_data(), invstd.mutable_data(),
      mutable_or_null(running_mean), mutable_or_null(running_var), stream_for(device));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& out, bool rows) {
  int device = x.device().index;
  DeviceGuard guard(device);
  kernels::ChannelDims d = dims_of(x, rows);
  int64_t parts = kernels::batch_norm_parts(d, multiprocessor_count(device));
  kernels::launch_batch_norm_apply(static_cast<int>(x.dtype()), param_dtype(x, {&weight, &bias}),
                                   x.data(), d, parts, mean.data(), invstd.data(),
                                   data_or_null(weight), data_or_null(bias), out.mutable_data(),
                                   stream_for(device));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias, bool rows) {
  int device = x.device().index;
  DeviceGuard guard(device);
  kernels::ChannelDims d = dims_of(x, rows);
  int64_t parts = kernels::batch_norm_parts(d, multiprocessor_count(device));
  Tensor workspace = workspace_for(x, parts);
  kernels::launch_batch_norm_backward(
      static_cast<int>(x.dtype()), param_dtype(x, {&weight, &grad_weight, &grad_bias}), grad.data(),
      x.data(), d, parts, workspace.mutable_data(), mean.data(), invstd.data(),
      data_or_null(weight), training, mutable_or_null(grad_input), mutable_or_null(grad_weight),
      mutable_or_null(grad_bias), stream_for(device));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

#pragma once
// The fused batch norm over contiguous (N, C, S) CUDA inputs (Note [Fused batch norm kernels] in
// kernels/batch_norm.cu), with the tensor contract of cpu/batch_norm.h. Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void batch_norm_stats(const Tensor& x, double eps, double momentum, const Tensor& mean,
                      const Tensor& invstd, const Tensor& running_mean, const Tensor& running_var);

void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& out);

void batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias);

}  // namespace genesis::cuda

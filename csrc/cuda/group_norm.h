#pragma once
// The fused group norm over contiguous CUDA tensors (Note [Fused group norm kernels] in
// kernels/group_norm.cu), with the tensor contract of cpu/group_norm.h. Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void group_norm_forward(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                        double eps, const Tensor& out, const Tensor& mean, const Tensor& rstd);

void group_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& rstd, const Tensor& weight, int64_t groups,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias);

}  // namespace genesis::cuda

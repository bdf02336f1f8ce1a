#pragma once
// The fused batch norm over CUDA inputs (Note [Fused batch norm kernels] in
// kernels/batch_norm.cu), with the tensor contract of cpu/batch_norm.h, except that `rows` says
// x, out, grad and grad_input are dense channels-last (N, C, *) tensors (memory: N * S rows of C
// items) instead of contiguous (N, C, S) ones, and that the weight, bias, running statistics and
// the weight's and bias's gradients may be float32 beside a 16-bit x (all of one dtype).
// Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void batch_norm_stats(const Tensor& x, double eps, double momentum, const Tensor& mean,
                      const Tensor& invstd, const Tensor& running_mean, const Tensor& running_var,
                      bool rows);

void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& out, bool rows);

void batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias, bool rows);

}  // namespace genesis::cuda

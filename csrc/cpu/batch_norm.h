#pragma once
// The CPU's fused batch norm over (N, C, S) inputs (Note [Fused batch norm] in
// ops/batch_norm.cpp). x, out, grad and grad_input are contiguous (N, C, S); weight, bias,
// running_mean, running_var, grad_weight and grad_bias (C,) in x's dtype; mean and invstd (C,) in
// the compute dtype (float64 for float64 input, else float32). Undefined tensors are absent.
#include "core/tensor.h"

namespace genesis::cpu {

// mean and invstd of each channel over N and S (the biased variance); the running statistics,
// when given, move toward them by `momentum` (the variance unbiased).
void batch_norm_stats(const Tensor& x, double eps, double momentum, const Tensor& mean,
                      const Tensor& invstd, const Tensor& running_mean, const Tensor& running_var);

// out = (x - mean[c]) * invstd[c] * weight[c] + bias[c].
void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& out);

// The gradients; `training`: mean and invstd are the batch's (their own gradients included),
// else constants (the running statistics).
void batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias);

}  // namespace genesis::cpu

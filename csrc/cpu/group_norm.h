#pragma once
// The CPU's fused group norm (Note [Fused group norm] in ops/group_norm.cpp). Every tensor is
// contiguous: x, out, grad and grad_input (N, C, *spatial) with N * C * spatial > 0 items; weight,
// bias, grad_weight and grad_bias (C) in x's dtype; mean and rstd (N, groups) in the compute
// dtype (float64 for float64 input, else float32). An undefined tensor is absent: no weight or
// bias, a gradient not wanted.
#include "core/tensor.h"

namespace genesis::cpu {

void group_norm_forward(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                        double eps, const Tensor& out, const Tensor& mean, const Tensor& rstd);

void group_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& rstd, const Tensor& weight, int64_t groups,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias);

}  // namespace genesis::cpu

#pragma once
// The CPU's fused layer norm and RMS norm over contiguous rows (Note [Fused row normalization]
// in ops/normalization.cpp). Every tensor is contiguous: x, out, grad and grad_input
// [rows, cols]; weight, bias, grad_weight and grad_bias [cols] in x's dtype; mean and rstd [rows]
// in the compute dtype (float64 for float64 rows, else float32). An undefined tensor is absent:
// no weight or bias, no mean for RMS norm, a gradient not wanted.
#include "core/tensor.h"

namespace genesis::cpu {

void row_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                      bool rms, const Tensor& out, const Tensor& mean, const Tensor& rstd);

void row_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                       const Tensor& weight, bool rms, const Tensor& grad_input,
                       const Tensor& grad_weight, const Tensor& grad_bias);

}  // namespace genesis::cpu

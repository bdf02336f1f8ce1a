#pragma once
// The fused layer norm and RMS norm over contiguous CUDA rows (Note [Fused row normalization
// kernels] in kernels/normalization.cu), with the tensor contract of cpu/normalization.h.
// Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void row_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                      bool rms, const Tensor& out, const Tensor& mean, const Tensor& rstd);

// addend (undefined: none): added to grad_input in the kernel that writes it, as eager's addition
// would; x's dtype and rows. grad: x's dtype, or float16/bfloat16 beside float32 x.
void row_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                       const Tensor& weight, bool rms, const Tensor& grad_input,
                       const Tensor& addend, const Tensor& grad_weight, const Tensor& grad_bias);

}  // namespace genesis::cuda

#pragma once
// Layer norm and RMS norm as single fused kernels, forward and backward (Note [Fused row
// normalization] in normalization.cpp).
#include <cstdint>

#include "core/tensor.h"

namespace genesis::ops {

// The result and each row's statistics, kept for backward: mean and rstd are shaped as the
// input's leading (not normalized) dims, in float32 (float64 for float64 input); mean is
// undefined for RMS norm.
struct RowNorm {
  Tensor out, mean, rstd;
};

// Normalizes the last `normalized_ndim` dims of `x` (float16, bfloat16, float32 or float64):
// (x - mean) / sqrt(var + eps) * weight + bias, or for `rms` x / sqrt(mean(x^2) + eps) * weight.
// weight and bias (undefined: absent; never a bias for rms) hold the normalized dims' items in
// x's dtype, on x's device. `name` ("layer_norm", "rms_norm") starts the errors.
RowNorm row_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight, const Tensor& bias,
                 double eps, bool rms, const char* name);

// The gradients of row_norm's inputs from the result's gradient and its saved statistics; only
// the wanted ones are computed (the rest undefined). The weight and bias gradients have the
// weight's sizes. addend (undefined: none; else x's sizes): added to the input's gradient, in
// the kernel that writes it where it can (CUDA, x's dtype, contiguous), else by an addition
// after it; the sum is eager's `addend + gradient` either way (Note [A gradient summed where it
// is made] in autograd/engine.cpp).
struct RowNormGrads {
  Tensor input, weight, bias;
};
RowNormGrads row_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                               const Tensor& rstd, const Tensor& weight, int64_t normalized_ndim,
                               bool rms, bool want_input, bool want_weight, bool want_bias,
                               const Tensor& addend = Tensor());

}  // namespace genesis::ops

#pragma once
// Group norm as one fused op, forward and backward (Note [Fused group norm] in group_norm.cpp).
#include <cstdint>

#include "core/tensor.h"
#include "ops/normalization.h"

namespace genesis::ops {

// Normalizes each (sample, group of C / groups consecutive channels) of an (N, C, *) input x
// (float16, bfloat16, float32 or float64) to zero mean and unit biased variance, then scales and
// shifts each channel by weight and bias ((C) items of x's dtype on x's device; undefined:
// absent). out is x's shape and dtype; mean and rstd (N, groups) in float32 (float64 for float64
// input).
RowNorm group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                   double eps);

// The gradients of group_norm's inputs from the result's gradient and the saved statistics;
// only the wanted ones are computed (the rest undefined).
RowNormGrads group_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                                 const Tensor& rstd, const Tensor& weight, int64_t groups,
                                 bool want_input, bool want_weight, bool want_bias);

}  // namespace genesis::ops

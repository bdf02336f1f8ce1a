#pragma once
// Batch norm as fused kernels, forward and backward (Note [Fused batch norm] in
// batch_norm.cpp).
#include "core/tensor.h"

namespace genesis::ops {

// The result and the statistics it used, kept for backward: mean and invstd (C,) in float32
// (float64 for float64 input): the batch's in training, the running statistics' out of it.
struct BatchNorm {
  Tensor out, mean, invstd;
};

// x (N, C, *) of float16, bfloat16, float32 or float64 with at least one item; weight, bias,
// running_mean and running_var (C,) of one dtype (x's, or float32 beside a 16-bit x) on x's
// device, each optional (undefined) except the running statistics out of training. In training
// the running statistics (when given) are updated in place: running = (1 - momentum) * running +
// momentum * batch (variance unbiased). The result has x's dtype, and x's layout when x is dense
// channels-last (else contiguous).
BatchNorm batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool training,
                     double momentum, double eps);

struct BatchNormGrads {
  Tensor input, weight, bias;
};
// The wanted gradients from the result's gradient and the saved statistics (`training`: they are
// the batch's, with their own gradients): the input's in x's dtype and layout, the weight's and
// bias's in `param_dtype` (the parameters').
BatchNormGrads batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                                   const Tensor& invstd, const Tensor& weight, bool training,
                                   bool want_input, bool want_weight, bool want_bias,
                                   ScalarType param_dtype);

}  // namespace genesis::ops

#pragma once
// torch.nn.functional's pointwise activations with their parameters, and the elementwise
// composites of PyTorch's everyday API (lerp, addcmul, addcdiv, nan_to_num, isclose, equal).
// The activations at their default parameters are one fused op each (Note [Activations] in
// vocab/math_functors.h); other parameters and the composites are built from the elementwise
// ops, so they run on every device.
#include <optional>
#include <string>

#include "core/scalar.h"
#include "core/tensor.h"
#include "ops/elementwise.h"

namespace genesis::ops {

// approximate: "none" or "tanh".
Tensor gelu(const Tensor& a, const std::string& approximate);
Tensor softplus(const Tensor& a, double beta, double threshold);
Tensor elu(const Tensor& a, double alpha, double scale, double input_scale);
Tensor leaky_relu(const Tensor& a, double negative_slope);
Tensor hardtanh(const Tensor& a, const Scalar& min_val, const Scalar& max_val);

// start + weight * (end - start), PyTorch's two-sided formula (exact at weight 0 and 1).
Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight);
// input + value * t1 * t2, input + value * t1 / t2.
Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value);
Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value);
// NaN -> nan, +inf -> posinf (default: the dtype's largest), -inf -> neginf (its lowest).
Tensor nan_to_num(const Tensor& a, double nan, std::optional<double> posinf,
                  std::optional<double> neginf);
// |a - b| <= atol + rtol * |b|, or a == b (infinities); NaNs equal when equal_nan.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);
// isclose everywhere (a and b broadcast).
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);
// Same sizes and every element equal (NaN is not equal to itself).
bool equal(const Tensor& a, const Tensor& b);

// Writes `result` into `self` for the in-place forms (elu_, leaky_relu_ ...).
void assign_(const Tensor& self, const Tensor& result, const char* name);

}  // namespace genesis::ops

#pragma once
// The CPU's fused cross-entropy over contiguous rows of logits (Note [Fused cross-entropy] in
// ops/cross_entropy.cpp). logits [rows, cols] (float16, bfloat16, float32 or float64), target
// [rows] int64, weight [cols] in the logits' dtype or undefined; loss and grad [rows] in the
// logits' dtype, lse [rows, 2] in the compute dtype (each row's maximum m and log sum exp(x - m))
// (float64 for float64 logits, else float32), dlogits [rows, cols]. All contiguous.
#include <cstdint>

#include "core/tensor.h"

namespace genesis::cpu {

// Raises IndexError for a target outside [0, cols) that is not ignore_index.
void cross_entropy_forward(const Tensor& logits, const Tensor& target, const Tensor& weight,
                           int64_t ignore_index, double smoothing, const Tensor& loss,
                           const Tensor& lse);

void cross_entropy_backward(const Tensor& logits, const Tensor& target, const Tensor& weight,
                            int64_t ignore_index, double smoothing, const Tensor& grad,
                            const Tensor& lse, const Tensor& dlogits);

}  // namespace genesis::cpu

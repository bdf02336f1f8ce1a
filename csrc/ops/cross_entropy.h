#pragma once
// Cross-entropy over rows of logits with class-index targets as one fused op, forward and
// backward (Note [Fused cross-entropy] in cross_entropy.cpp).
#include <cstdint>

#include "core/tensor.h"

namespace genesis::ops {

// Each row's loss (the logits' dtype, target's shape) and logsumexp as the pair (max, log of the
// sum of exp(x - max)) (target's shape + (2,), float32; float64 for float64 logits), kept for
// backward.
struct CrossEntropy {
  Tensor loss, lse;
};

// logits (N, C) or (C,) (float16, bfloat16, float32 or float64), target (N,) or () int64 class
// indices, weight (C,) in the logits' dtype or undefined: loss = (1 - s) w[t] (lse - x[t]) +
// s / C * sum_c w[c] (lse - x[c]) per row, 0 where the target is ignore_index (s: label
// smoothing in [0, 1]).
CrossEntropy cross_entropy(const Tensor& logits, const Tensor& target, const Tensor& weight,
                           int64_t ignore_index, double smoothing);

// The gradient of the logits from the rows' loss gradient `grad` (target's shape).
Tensor cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& target,
                              const Tensor& weight, const Tensor& lse, int64_t ignore_index,
                              double smoothing);

}  // namespace genesis::ops

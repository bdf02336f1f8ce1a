#pragma once
// Host launchers for the fused cross-entropy over rows of logits (device code and Note [Fused
// cross-entropy kernels] in cross_entropy.cu).
#include <cstdint>

#include "kernels/index.cuh"

namespace genesis::kernels {

// What the forward and the backward both read. logits: `rows` contiguous rows of `cols` items
// of dtype code `dtype` (a floating point type); target: `rows` int64 class indices; weight:
// `cols` items of the logits' dtype, or null; weight_sum: the weight's sum as one item of the
// compute type (float, double for float64) on the device, or null (no weight: cols).
struct CrossEntropyRows {
  int dtype;
  const void* logits;
  const int64_t* target;
  const void* weight;
  const void* weight_sum;
  int64_t rows, cols, ignore_index;
  double smoothing;
};

// loss[r] (the logits' dtype) = (1 - s) w[t] (lse - x[t]) + s / cols * (W lse - sum_c w[c] x[c])
// with t = target[r], lse the row's logsumexp (left in `lse` as the pair (m, log s) of its
// maximum m and log of sum exp(x - m), two items of the compute type a row) and s the
// smoothing; 0 for rows whose target is ignore_index. A target outside [0, cols) otherwise is
// recorded in `error` (its row's loss is NaN).
void launch_cross_entropy_forward(const CrossEntropyRows& a, void* loss, void* lse, IndexSite error,
                                  void* stream);

// dlogits[r, c] = grad[r] * ((1 - s) w[t] (p[c] - [c == t]) + s / cols * (W p[c] - w[c])),
// p = exp((x - m) - log s); zero rows where the target is ignored or out of range. grad: `rows`
// items of the logits' dtype.
void launch_cross_entropy_backward(const CrossEntropyRows& a, const void* grad, const void* lse,
                                   void* dlogits, void* stream);

}  // namespace genesis::kernels

#pragma once
// The fused cross-entropy over contiguous CUDA rows of logits (Note [Fused cross-entropy
// kernels] in kernels/cross_entropy.cu), with the tensor contract of cpu/cross_entropy.h; an
// out-of-range target is a deferred index error (Note [Deferred index errors]), or raised at
// once under the immediate index check. weight_sum: the weight's sum, a 0-d tensor of the
// compute dtype, given when there are a weight and label smoothing. Current stream.
#include <cstdint>

#include "core/tensor.h"

namespace genesis::cuda {

void cross_entropy_forward(const Tensor& logits, const Tensor& target, const Tensor& weight,
                           const Tensor& weight_sum, int64_t ignore_index, double smoothing,
                           const Tensor& loss, const Tensor& lse);

void cross_entropy_backward(const Tensor& logits, const Tensor& target, const Tensor& weight,
                            const Tensor& weight_sum, int64_t ignore_index, double smoothing,
                            const Tensor& grad, const Tensor& lse, const Tensor& dlogits);

}  // namespace genesis::cuda

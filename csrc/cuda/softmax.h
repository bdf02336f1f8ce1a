#pragma once
// Softmax over the last dim of a contiguous CUDA tensor in one kernel (Note [Fused softmax] in
// kernels/softmax.cu). `out` has `in`'s shape and floating point dtype. Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void softmax_last_dim(const Tensor& in, const Tensor& out, bool log);
// out (one item a row, `in`'s dtype) = logsumexp over the last dim of `in`, whose rows hold at most
// kernels::kSoftmaxWarpRowMax items (Note [Fused row logsumexp] in kernels/softmax.cu).
void logsumexp_last_dim(const Tensor& in, const Tensor& out);
// Whether logsumexp_last_dim takes rows of `cols` items.
bool logsumexp_rows_fit(int64_t cols);

}  // namespace genesis::cuda

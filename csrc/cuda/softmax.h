#pragma once
// Softmax over the last dim of a contiguous CUDA tensor in one kernel (Note [Fused softmax] in
// kernels/softmax.cu). `out` has `in`'s shape and floating point dtype. Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void softmax_last_dim(const Tensor& in, const Tensor& out, bool log);

}  // namespace genesis::cuda

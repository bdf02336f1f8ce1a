#pragma once
// CUDA binary search (cpu/search.h's search_sorted on CUDA tensors). Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void search_sorted(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right);

}  // namespace genesis::cuda

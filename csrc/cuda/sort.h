#pragma once
// CUDA sorting and run finding (cpu/sort.h's operations on CUDA tensors; Note [CUDA row sort]
// in kernels/sort.cu). Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void sort_rows(const Tensor& values, const Tensor& indices, bool descending);
void mode_rows(const Tensor& sorted, const Tensor& order, const Tensor& values_out,
               const Tensor& indices_out);

}  // namespace genesis::cuda

#pragma once
// Matrix products with PyTorch's shape rules. Both operands must have the same dtype and device
// (no promotion); bool is not supported, nor integers on CUDA.
#include "core/tensor.h"

namespace genesis::ops {

// torch.matmul: 1-D @ 1-D is a dot product (a 0-d result); a 1-D left operand gains a leading
// dim of 1 and a 1-D right operand a trailing one, which the result drops again; the dims before
// the last two broadcast. K == 0 gives zeros.
Tensor matmul(const Tensor& a, const Tensor& b);
// 2-D @ 2-D only.
Tensor mm(const Tensor& a, const Tensor& b);
// 3-D @ 3-D with equal batch sizes (no broadcasting).
Tensor bmm(const Tensor& a, const Tensor& b);

}  // namespace genesis::ops

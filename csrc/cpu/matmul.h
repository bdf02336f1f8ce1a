#pragma once
#include "core/tensor.h"

namespace genesis::cpu {

// out = a @ b for CPU tensors of one dtype (any but bool): out is contiguous (batch, m, n), a is
// (batch, m, k) and b (batch, k, n) with any strides (0 included). float32/float64 run the
// blocked GEMM (cpu/gemm.h); float16/bfloat16 go through it in float32 and round once at the
// end; integers accumulate in their own type, wrapping around as PyTorch and NumPy do.
void matmul(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace genesis::cpu

#pragma once
// Matrix products through cuBLAS, as the rest of genesis sees them: plain C++, no CUDA headers.
// csrc/cuda/blas.cpp loads cuBLAS at run time (Note [Loading cuBLAS]); csrc/cuda/no_cuda_blas.cpp
// stands in for CPU-only builds.
#include "core/tensor.h"

namespace genesis::cuda {

// out = a @ b on out's device and current stream, for float16, bfloat16 (float32 accumulation),
// float32 (no TF32) and float64. out is contiguous (batch, m, n); a is (batch, m, k) and b
// (batch, k, n), each with any strides: a matrix that is row- or column-major goes to cuBLAS as
// it is (any batch stride, 0 included), any other is copied first. k > 0.
void gemm_strided_batched(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace genesis::cuda

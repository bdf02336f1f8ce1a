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

// The batched LU of Note [Batched small matrices] (csrc/cuda/solver.cpp): cublas<S|D>getrfBatched
// and cublas<S|D>getrsBatched (dtype float32 or float64) over `batch` column-major n x n
// matrices, on `device`'s current stream. `matrices`, `lu` and `rhs` (n x nrhs each) are device
// arrays of `batch` device pointers; ipiv (n 1-based pivots a matrix, as LAPACK's) and info (one
// a matrix: i > 0 when U(i, i) is exactly zero) are int32 device arrays. 0 <= batch; nothing
// here waits for the device.
void getrf_batched(Device device, ScalarType dtype, int n, void* const* matrices, int lda,
                   int* ipiv, int* info, int batch, const char* op);
void getrs_batched(Device device, ScalarType dtype, int n, int nrhs, void* const* lu, int lda,
                   const int* ipiv, void* const* rhs, int ldb, int batch, const char* op);

}  // namespace genesis::cuda

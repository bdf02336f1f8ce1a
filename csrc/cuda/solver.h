#pragma once
// The decompositions on CUDA devices through cuSOLVER, loaded at run time (Note [Loading
// cuSOLVER] in csrc/cuda/solver.cpp); plain C++, no CUDA headers. The same contract as the CPU
// routines (csrc/cpu/linalg_decomp.h, Note [Decomposition buffers] in ops/linalg_decomp.cpp):
// contiguous (batch, cols, rows) column-major buffers factored in place on the current stream,
// int32 ipiv and info on the device; nothing here waits for the device.
#include "core/tensor.h"

namespace genesis::cuda {

void linalg_getrf(const Tensor& a, const Tensor& ipiv, const Tensor& info, const char* op);
void linalg_getrs(const Tensor& lu, const Tensor& ipiv, const Tensor& b, const char* op);
// Whether linalg_potrf of `batch` n x n matrices runs genesis's own kernel (Note [Batched small
// matrices]), which reads and writes either triangle as fast; cuSOLVER's batched call is faster
// on the column-major lower one (Note [Cholesky layouts] in ops/linalg_decomp.cpp).
bool potrf_in_own_kernel(int64_t n, int64_t batch);
// Returns whether the triangle not factored came back zeroed (small matrices, Note [Batched
// small matrices]); cuSOLVER's potrf leaves it as it was.
bool linalg_potrf(const Tensor& a, bool lower, const Tensor& info, const char* op);
void linalg_geqrf(const Tensor& a, const Tensor& tau, const char* op);
void linalg_orgqr(const Tensor& q, const Tensor& tau, const char* op);
// rows >= cols (cuSOLVER's gesvd needs it); u and vt undefined for values only.
void linalg_gesvd(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, bool full,
                  const Tensor& info, const char* op);
void linalg_syevd(const Tensor& a, bool lower, bool vectors, const Tensor& w, const Tensor& info,
                  const char* op);

}  // namespace genesis::cuda

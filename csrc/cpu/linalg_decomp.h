#pragma once
// The decompositions on the CPU through LAPACK (csrc/cpu/lapack.h), one matrix at a time.
// Note [Decomposition buffers] (ops/linalg_decomp.cpp): every matrix argument is a contiguous
// float32/float64 tensor (batch, cols, rows) holding column-major rows x cols matrices, factored
// in place; ipiv and info are contiguous int32 (batch, n) and (batch). The CUDA twins are in
// csrc/cuda/solver.h.
#include "core/tensor.h"

namespace genesis::cpu {

// LU with partial pivoting of square a; info[b] > 0 marks a zero pivot.
void linalg_getrf(const Tensor& a, const Tensor& ipiv, const Tensor& info, const char* op);
// Solves from getrf's factors in place of b (batch, nrhs, n).
void linalg_getrs(const Tensor& lu, const Tensor& ipiv, const Tensor& b, const char* op);
// Cholesky of the lower (or upper) triangle; info[b] > 0: not positive-definite.
void linalg_potrf(const Tensor& a, bool lower, const Tensor& info, const char* op);
// Householder QR: R and the reflectors in a, tau (batch, min(rows, cols)).
void linalg_geqrf(const Tensor& a, const Tensor& tau, const char* op);
// q holds the reflectors in its first tau.size(1) columns; becomes Q (rows >= cols).
void linalg_orgqr(const Tensor& q, const Tensor& tau, const char* op);
// SVD of a (destroyed), rows >= cols: s (batch, cols); u (batch, rows or cols, rows) and vt
// (batch, cols, cols) unless undefined (values only); info[b] > 0: no convergence.
void linalg_gesvd(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, bool full,
                  const Tensor& info, const char* op);
// Eigenvalues w (batch, n) ascending of the symmetric matrix in a's lower (or upper) triangle;
// with vectors, a becomes the eigenvectors (columns).
void linalg_syevd(const Tensor& a, bool lower, bool vectors, const Tensor& w, const Tensor& info,
                  const char* op);

}  // namespace genesis::cpu

#pragma once
// genesis.linalg's decompositions with torch.linalg's semantics: solve, inv, det, slogdet,
// cholesky, qr, svd/svdvals and eigh/eigvalsh on batches (..., m, n) of float32/float64
// matrices. LAPACK factors on the CPU (csrc/cpu/linalg_decomp.h), cuSOLVER on CUDA
// (csrc/cuda/solver.h); this layer checks, lays out, and checks the result (Note
// [Decomposition buffers] in the .cpp). A factorization that fails for the input's values
// (a singular matrix, one not positive-definite) raises LinAlgError.
#include <string>
#include <tuple>
#include <utility>

#include "core/errors.h"
#include "core/tensor.h"

namespace genesis::ops {

// A decomposition that failed for the input's values: "[op] message". The bindings translate it
// to genesis.linalg.LinAlgError, a RuntimeError (as torch.linalg.LinAlgError).
class LinAlgError : public Error {
 public:
  LinAlgError(const char* op, const std::string& message)
      : Error(ErrorKind::Runtime, str_cat("[", op, "] ", message)) {}
};

// X with A X = B (left) or X A = B; B (..., n, k) or a vector (n) / (..., n) whose shape is
// A's without the last dim; batch dims broadcast.
Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left, const char* op = "linalg.solve");
Tensor linalg_inv(const Tensor& a);
Tensor linalg_det(const Tensor& a);
// (sign, log|det|); a singular matrix gives (0, -inf).
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& a);
// L with A = L L^T from A's lower triangle, or U with A = U^T U from its upper one.
Tensor linalg_cholesky(const Tensor& a, bool upper);
// (Q, R); mode "reduced", "complete" or "r" (Q empty).
std::pair<Tensor, Tensor> linalg_qr(const Tensor& a, const std::string& mode);
// (U, S, Vh), S descending.
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices);
Tensor linalg_svdvals(const Tensor& a);
// (eigenvalues ascending, eigenvectors as columns) of the symmetric matrix in A's UPLO ("L" or
// "U") triangle.
std::pair<Tensor, Tensor> linalg_eigh(const Tensor& a, const std::string& uplo);
Tensor linalg_eigvalsh(const Tensor& a, const std::string& uplo);

}  // namespace genesis::ops

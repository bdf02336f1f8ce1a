// genesis.linalg's decompositions (ops/linalg_decomp.h).
#include "ops/linalg_decomp.h"

#include <algorithm>
#include <cctype>

#include "core/errors.h"
#include "core/shape.h"
#include "cpu/linalg_decomp.h"
#include "cuda/solver.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "ops/triangular.h"
#include "ops/views.h"

// Note [Decomposition buffers]
// LAPACK and cuSOLVER take column-major matrices, genesis's are row-major. Every routine gets a
// fresh contiguous (batch, cols, rows) buffer -- a column-major rows x cols matrix per batch item,
// factored in place -- and the result goes back row-major by one transposing copy. Where the
// transpose does not matter, the row-major copy is passed as it is, as the column-major A^T:
// det(A^T) = det(A); the symmetric matrix in A's lower triangle is the one in A^T's upper
// triangle, so cholesky and eigh flip UPLO (and Cholesky's factor of A^T, read row-major, is
// the one torch returns); and an SVD of a wide A is the SVD of A^T with U and Vh swapped, each
// already row-major (which also gives cuSOLVER's gesvd the rows >= cols it needs).
//
// Failures that depend on the values (a zero pivot, a matrix not positive-definite, no
// convergence) come back in an int32 info per matrix; it is read once per call after all the
// matrices are done (one device sync on CUDA) and raises LinAlgError naming the first bad item.

namespace genesis::ops {

namespace {

// The backend routines (csrc/cpu/linalg_decomp.h, csrc/cuda/solver.h) for a's device.
void getrf(const Tensor& a, const Tensor& ipiv, const Tensor& info, const char* op) {
  a.is_cuda() ? cuda::linalg_getrf(a, ipiv, info, op) : cpu::linalg_getrf(a, ipiv, info, op);
}
void getrs(const Tensor& lu, const Tensor& ipiv, const Tensor& b, const char* op) {
  lu.is_cuda() ? cuda::linalg_getrs(lu, ipiv, b, op) : cpu::linalg_getrs(lu, ipiv, b, op);
}
// Returns whether the triangle not factored came back zeroed (CUDA's small-matrix kernel).
bool potrf(const Tensor& a, bool lower, const Tensor& info, const char* op) {
  if (a.is_cuda()) return cuda::linalg_potrf(a, lower, info, op);
  cpu::linalg_potrf(a, lower, info, op);
  return false;
}
void geqrf(const Tensor& a, const Tensor& tau, const char* op) {
  a.is_cuda() ? cuda::linalg_geqrf(a, tau, op) : cpu::linalg_geqrf(a, tau, op);
}
void orgqr(const Tensor& q, const Tensor& tau, const char* op) {
  q.is_cuda() ? cuda::linalg_orgqr(q, tau, op) : cpu::linalg_orgqr(q, tau, op);
}
void gesvd(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, bool full,
           const Tensor& info, const char* op) {
  a.is_cuda() ? cuda::linalg_gesvd(a, s, u, vt, full, info, op)
              : cpu::linalg_gesvd(a, s, u, vt, full, info, op);
}
void syevd(const Tensor& a, bool lower, bool vectors, const Tensor& w, const Tensor& info,
           const char* op) {
  a.is_cuda() ? cuda::linalg_syevd(a, lower, vectors, w, info, op)
              : cpu::linalg_syevd(a, lower, vectors, w, info, op);
}

// torch's checks: a float32/float64 batch of (square) matrices.
void check_matrices(const Tensor& a, const char* op, bool square) {
  GENESIS_CHECK(a.ndim() >= 2, op, "The input tensor A must have at least 2 dimensions, got ",
                a.ndim());
  const ScalarType t = a.dtype();
  GENESIS_CHECK(is_floating_point(t), op, "Expected a floating point tensor as input. Got ",
                scalar_type_name(t));
  GENESIS_CHECK(t == ScalarType::Float32 || t == ScalarType::Float64, op,
                "Low precision dtypes not supported. Got ", scalar_type_name(t));
  if (square) {
    const int64_t r = a.sizes()[a.ndim() - 2], c = a.sizes()[a.ndim() - 1];
    GENESIS_CHECK(r == c, op, "A must be batches of square matrices, but they are ", r, " by ", c,
                  " matrices");
  }
}

Shape batch_of(const Tensor& a) { return Shape(a.sizes().begin(), a.sizes().end() - 2); }

Shape with(Shape s, int64_t r, int64_t c) {
  s.push_back(r);
  s.push_back(c);
  return s;
}

Shape with(Shape s, int64_t n) {
  s.push_back(n);
  return s;
}

// A fresh (batch, c, r) buffer of a's (..., r, c) matrices, column-major.
Tensor column_major(const Tensor& a) {
  const int64_t r = a.sizes()[a.ndim() - 2], c = a.sizes()[a.ndim() - 1];
  Tensor out = Tensor::empty(with(batch_of(a), c, r), a.dtype(), a.device());
  copy_(out, transpose(a, -2, -1));
  return view(out, {numel_of(batch_of(a)), c, r});
}

// A fresh (batch, r, c) row-major buffer of a's matrices: the column-major a^T.
Tensor row_major(const Tensor& a) {
  const int64_t r = a.sizes()[a.ndim() - 2], c = a.sizes()[a.ndim() - 1];
  Tensor out = Tensor::empty(with(batch_of(a), r, c), a.dtype(), a.device());
  copy_(out, a);
  return view(out, {numel_of(batch_of(a)), r, c});
}

// The (batch..., r, c) row-major result of a column-major (B, c, r) buffer.
Tensor from_column_major(const Tensor& buf, const Shape& batch) {
  const int64_t c = buf.sizes()[1], r = buf.sizes()[2];
  Tensor out = Tensor::empty(with(batch, r, c), buf.dtype(), buf.device());
  copy_(view(out, {buf.sizes()[0], r, c}), transpose(buf, 1, 2));
  return out;
}

Tensor int32s(const Shape& sizes, Device device) {
  return full(sizes, Scalar(int64_t{0}), ScalarType::Int32, device);
}

// Raises LinAlgError for the first matrix whose info is positive; what(info) says why.
template <typename What>
void check_info(const Tensor& info, const Shape& batch, const char* op, What what) {
  if (info.numel() == 0) return;
  Tensor host = info.is_cuda() ? copy_to(info, ScalarType::Int32, kCPU) : info;  // one sync
  const int32_t* p = host.data_as<int32_t>();
  for (int64_t b = 0; b < host.numel(); ++b) {
    if (p[b] <= 0) continue;
    std::string where = batch.empty() ? std::string() : str_cat("(Batch element ", b, "): ");
    throw LinAlgError(op, where + what(p[b]));
  }
}

// -1 for an odd permutation, per matrix: getrf's pivots against 1..n.
Tensor pivot_sign(const Tensor& ipiv, ScalarType dtype) {
  const int64_t n = ipiv.sizes()[1];
  Tensor steps = arange(Scalar(int64_t{1}), Scalar(n + 1), Scalar(int64_t{1}), ScalarType::Int32,
                        ipiv.device());
  Tensor swapped = copy_to(binary(BinaryOp::Ne, ipiv, steps, "linalg.det"), dtype, ipiv.device());
  Tensor flips = binary(BinaryOp::Add, binary(BinaryOp::Mul, swapped, Scalar(-2.0), "linalg.det"),
                        Scalar(1.0), "linalg.det");
  return prod(flips, Shape{1}, false, std::nullopt);
}

// LU of A's matrices: (row-major buffer = column-major A^T, pivots); det(A^T) = det(A).
std::pair<Tensor, Tensor> lu_of(const Tensor& a, const char* op) {
  check_matrices(a, op, true);
  Tensor lu = row_major(a);
  const int64_t n = lu.sizes()[1];
  Tensor ipiv = int32s({lu.sizes()[0], n}, a.device());
  Tensor info = int32s({lu.sizes()[0]}, a.device());
  getrf(lu, ipiv, info, op);  // a zero pivot is a zero determinant, not an error
  return {lu, ipiv};
}

char uplo_of(const std::string& uplo, const char* op) {
  GENESIS_CHECK(uplo == "L" || uplo == "U" || uplo == "l" || uplo == "u", op,
                "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  return static_cast<char>(std::toupper(static_cast<unsigned char>(uplo[0])));
}

}  // namespace

Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left, const char* op) {
  check_matrices(a, op, true);
  GENESIS_CHECK(
      b.dtype() == a.dtype(), op, "Expected A and B to have the same dtype, but found A of type ",
      scalar_type_name(a.dtype()), " and B of type ", scalar_type_name(b.dtype()), " instead");
  GENESIS_CHECK(b.device() == a.device(), op, "Expected A and B to be on the same device, got ",
                a.device().str(), " and ", b.device().str());
  const int64_t n = a.sizes()[a.ndim() - 1];
  // torch's rule: B is a vector when 1-D, or when its shape is A's without the last dim.
  const bool vector =
      b.ndim() == 1 || (b.ndim() == a.ndim() - 1 &&
                        Shape(b.sizes()) == Shape(a.sizes().begin(), a.sizes().end() - 1));
  GENESIS_CHECK(b.ndim() >= 1, op, "The input tensor B must have at least 1 dimension");
  // A vector is a column (n, 1) for left=False too, as torch (so X A = B then needs n == 1).
  Tensor bm = vector ? unsqueeze(b, -1) : b;
  GENESIS_CHECK(bm.ndim() >= 2, op, "The input tensor B must have at least 2 dimensions");
  const int64_t brows = bm.sizes()[bm.ndim() - 2], bcols = bm.sizes()[bm.ndim() - 1];
  GENESIS_CHECK((left ? brows : bcols) == n, op, "Incompatible shapes of A and B for the equation ",
                left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", brows, "x", bcols, ")");
  Tensor am = left ? a : transpose(a, -2, -1);
  if (!left) bm = transpose(bm, -2, -1);  // X A = B is A^T X^T = B^T
  const int64_t k = bm.sizes()[bm.ndim() - 1];
  const Shape batch = broadcast_shapes(batch_of(am), batch_of(bm), op);
  Tensor lu = column_major(expand(am, with(batch, n, n)));
  Tensor x = column_major(expand(bm, with(batch, n, k)));
  Tensor ipiv = int32s({lu.sizes()[0], n}, a.device());
  Tensor info = int32s({lu.sizes()[0]}, a.device());
  getrf(lu, ipiv, info, op);
  getrs(lu, ipiv, x, op);
  const bool inverse = std::string(op) == "linalg.inv";
  check_info(info, batch, op, [&](int32_t i) {
    return inverse ? str_cat("The diagonal element ", i,
                             " is zero, the inversion could not be completed because the input "
                             "matrix is singular.")
                   : std::string("The solver failed because the input matrix is singular.");
  });
  Tensor out = from_column_major(x, batch);  // (batch..., n, k)
  if (!left) out = transpose(out, -2, -1);
  if (vector) out = squeeze(out, Shape{-1});
  return out;
}

Tensor linalg_inv(const Tensor& a) {
  check_matrices(a, "linalg.inv", true);
  const int64_t n = a.sizes()[a.ndim() - 1];
  // I at A's full shape: a 2-D I could pass for a batch of vectors when A is (0, 0, 0).
  return linalg_solve(a, expand(eye(n, n, a.dtype(), a.device()), a.sizes()), true, "linalg.inv");
}

Tensor linalg_det(const Tensor& a) {
  auto [lu, ipiv] = lu_of(a, "linalg.det");
  Tensor d = prod(diagonal(lu, 0, 1, 2), Shape{1}, false, std::nullopt);
  return view(binary(BinaryOp::Mul, d, pivot_sign(ipiv, a.dtype()), "linalg.det"), batch_of(a));
}

std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& a) {
  auto [lu, ipiv] = lu_of(a, "linalg.slogdet");
  Tensor diag = diagonal(lu, 0, 1, 2);
  Tensor sign =
      binary(BinaryOp::Mul, pivot_sign(ipiv, a.dtype()),
             prod(unary(UnaryOp::Sign, diag, "linalg.slogdet"), Shape{1}, false, std::nullopt),
             "linalg.slogdet");
  Tensor logabs =
      sum(unary(UnaryOp::Log, unary(UnaryOp::Abs, diag, "linalg.slogdet"), "linalg.slogdet"),
          Shape{1}, false, std::nullopt);
  return {view(sign, batch_of(a)), view(logabs, batch_of(a))};
}

// Note [Cholesky layouts]: cuSOLVER's batched potrf is faster on the column-major lower
// triangle than on the upper one (H200, 16384 float32 64 x 64 matrices: 1.84 against 2.31 ms;
// 32 x 32: 0.59 against 0.77 ms). A row-major copy of A is the column-major A^T, whose lower
// triangle is A's upper one: U (upper=True) comes from it as it is. L from it would take the
// slow fill, so on that path (CUDA, a batch genesis's own kernel does not take) the buffer is a
// column-major copy of A instead, factored on its lower triangle, and L is returned as the
// transposed view of it: column-major, as PyTorch's L. Elsewhere the result is row-major (the
// CPU, and the own kernel, which reads and writes either triangle as fast).
Tensor linalg_cholesky(const Tensor& a, bool upper) {
  const char* op = "linalg.cholesky";
  check_matrices(a, op, true);
  const int64_t n = a.sizes()[a.ndim() - 1];
  const bool transposed =
      !upper && a.is_cuda() && !cuda::potrf_in_own_kernel(n, numel_of(batch_of(a)));
  Tensor f = transposed ? column_major(a) : row_major(a);
  Tensor info = int32s({f.sizes()[0]}, a.device());
  const bool lower_fill = upper || transposed;  // of the column-major buffer
  const bool zeroed = potrf(f, lower_fill, info, op);
  check_info(info, batch_of(a), op, [](int32_t i) {
    return str_cat(
        "The factorization could not be completed because the input is not "
        "positive-definite (the leading minor of order ",
        i, " is not positive-definite).");
  });
  // potrf leaves the other triangle as it was: the buffer's row-major lower one for lower_fill
  if (!zeroed) lower_fill ? triu_(f, 0) : tril_(f, 0);
  Tensor r = view(f, a.sizes());
  return transposed ? transpose(r, -2, -1) : r;
}

std::pair<Tensor, Tensor> linalg_qr(const Tensor& a, const std::string& mode) {
  const char* op = "linalg.qr";
  GENESIS_CHECK(mode == "reduced" || mode == "complete" || mode == "r", op,
                "qr received unrecognized mode '", mode,
                "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_matrices(a, op, false);
  const int64_t m = a.sizes()[a.ndim() - 2], n = a.sizes()[a.ndim() - 1], k = std::min(m, n);
  const Shape batch = batch_of(a);
  Tensor f = column_major(a);  // (B, n, m)
  Tensor tau = Tensor::empty({f.sizes()[0], k}, a.dtype(), a.device());
  geqrf(f, tau, op);
  const int64_t rrows = mode == "complete" ? m : k;
  Tensor r = triu(narrow(from_column_major(f, batch), -2, 0, rrows), 0);
  if (mode == "r") return {Tensor::empty({0}, a.dtype(), a.device()), r};
  const int64_t qcols = mode == "complete" ? m : k;
  Tensor q = full({f.sizes()[0], qcols, m}, Scalar(0.0), a.dtype(), a.device());
  const int64_t have = std::min(qcols, n);
  copy_(narrow(q, 1, 0, have), narrow(f, 1, 0, have));
  orgqr(q, tau, op);
  return {from_column_major(q, batch), r};
}

namespace {

// U, S, Vh (U and Vh undefined for values only) of a (..., m, n); Note [Decomposition buffers].
std::tuple<Tensor, Tensor, Tensor> svd_of(const Tensor& a, bool full, bool vectors,
                                          const char* op) {
  check_matrices(a, op, false);
  const int64_t m = a.sizes()[a.ndim() - 2], n = a.sizes()[a.ndim() - 1], k = std::min(m, n);
  const Shape batch = batch_of(a);
  const bool wide = m < n;
  // rows >= cols: the column-major A, or (wide) the row-major A as the column-major A^T.
  Tensor f = wide ? row_major(a) : column_major(a);
  const int64_t nb = f.sizes()[0], rows = std::max(m, n);
  Tensor s = Tensor::empty({nb, k}, a.dtype(), a.device());
  Tensor u, vt;
  if (vectors) {
    u = Tensor::empty({nb, full ? rows : k, rows}, a.dtype(), a.device());
    vt = Tensor::empty({nb, k, k}, a.dtype(), a.device());
  }
  Tensor info = int32s({nb}, a.device());
  if (nb > 0 && k == 0 && vectors && full) {  // no factorization: U and V are identities
    copy_(u, expand(eye(rows, rows, a.dtype(), a.device()), u.sizes()));
  }
  gesvd(f, s, u, vt, full, info, op);
  check_info(info, batch, op, [](int32_t i) {
    return str_cat(
        "The algorithm failed to converge because the input matrix is ill-conditioned "
        "or has too many repeated singular values (error code: ",
        i, ").");
  });
  Tensor sv = view(s, with(batch, k));
  if (!vectors) return {Tensor(), sv, Tensor()};
  const int64_t ucols = full ? rows : k;
  if (wide) {
    // A^T = U' S V'^T: U = V' and Vh = U'^T, which are the row-major reads of vt and u.
    return {view(vt, with(batch, m, m)), sv, view(u, with(batch, ucols, n))};
  }
  return {from_column_major(u, batch), sv, from_column_major(vt, batch)};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices) {
  return svd_of(a, full_matrices, true, "linalg.svd");
}

Tensor linalg_svdvals(const Tensor& a) {
  return std::get<1>(svd_of(a, false, false, "linalg.svdvals"));
}

namespace {

std::pair<Tensor, Tensor> eigh_of(const Tensor& a, const std::string& uplo, bool vectors,
                                  const char* op) {
  check_matrices(a, op, true);
  const bool lower = uplo_of(uplo, op) == 'L';
  const int64_t n = a.sizes()[a.ndim() - 1];
  const Shape batch = batch_of(a);
  Tensor f = row_major(a);  // column-major A^T: flip the triangle
  Tensor w = Tensor::empty({f.sizes()[0], n}, a.dtype(), a.device());
  Tensor info = int32s({f.sizes()[0]}, a.device());
  syevd(f, !lower, vectors, w, info, op);
  check_info(info, batch, op, [](int32_t i) {
    return str_cat(
        "The algorithm failed to converge because the input matrix is ill-conditioned "
        "or has too many repeated eigenvalues (error code: ",
        i, ").");
  });
  Tensor values = view(w, with(batch, n));
  if (!vectors) return {values, Tensor()};
  return {values, from_column_major(f, batch)};
}

}  // namespace

std::pair<Tensor, Tensor> linalg_eigh(const Tensor& a, const std::string& uplo) {
  return eigh_of(a, uplo, true, "linalg.eigh");
}

Tensor linalg_eigvalsh(const Tensor& a, const std::string& uplo) {
  return eigh_of(a, uplo, false, "linalg.eigvalsh").first;
}

}  // namespace genesis::ops

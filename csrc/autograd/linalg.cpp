// Backward formulas of genesis.linalg: inv, det, slogdet, solve, cholesky, and the singular
// values and symmetric eigenvalues; matrix_norm under grad as PyTorch composes it. Each is the
// textbook matrix-calculus result for real matrices, built from differentiable ops where a double
// backward may need it; svdvals and eigvalsh compute their vectors again at backward time (a
// decomposition without a formula of its own).
#include <algorithm>

#include "autograd/formula_helpers.h"
#include "core/errors.h"
#include "core/shape.h"
#include "ops/composed.h"
#include "ops/creation.h"
#include "ops/linalg_decomp.h"
#include "ops/matmul.h"
#include "ops/reduce_composite.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }

bool is_vector_rhs(const Tensor& a, const Tensor& b) {
  return b.ndim() == 1 || (b.ndim() == a.ndim() - 1 &&
                           Shape(b.sizes()) == Shape(a.sizes().begin(), a.sizes().end() - 1));
}

}  // namespace

Tensor linalg_inv(const Tensor& a) {
  Tensor out = ops::linalg_inv(a);
  Recorder r = record("LinalgInvExBackward0", {&a}, [](const FormulaNode&, const Grads& g, S s) {
    // d(A^-1) = -A^-1 dA A^-1, so dA = -A^-T g A^-T.
    Tensor inv_t = mT(s[0]);
    return Grads{neg(matmul(matmul(inv_t, g[0]), inv_t))};
  });
  if (!r) return out;
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor linalg_det(const Tensor& a) {
  Tensor out = ops::linalg_det(a);
  Recorder r = record("LinalgDetBackward0", {&a}, [](const FormulaNode&, const Grads& g, S s) {
    // d det = det tr(A^-1 dA): dA = g det A^-T (A must be invertible).
    Tensor scale = unsqueeze(unsqueeze(mul(g[0], s[1]), -1), -1);
    return Grads{mul(scale, mT(linalg_inv(s[0])))};
  });
  if (!r) return out;
  r.save(a);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left) {
  Tensor out = ops::linalg_solve(a, b, left);
  bool vector = is_vector_rhs(a, b);
  Recorder r = record("LinalgSolveExBackward0", {&a, &b},
                      [left, vector](const FormulaNode& n, const Grads& g, S s) {
                        // AX = B: dB = A^-T g, dA = -dB X^T; XA = B: dB = g A^-T, dA = -X^T dB.
                        Grads r(2);
                        Tensor gb = linalg_solve(mT(s[0]), g[0], left);
                        if (n.needs_grad(1)) r[1] = gb;
                        if (n.needs_grad(0)) {
                          Tensor x = vector ? unsqueeze(s[1], -1) : s[1];
                          Tensor gm = vector ? unsqueeze(gb, -1) : gb;
                          r[0] = neg(left ? matmul(gm, mT(x)) : matmul(mT(x), gm));
                        }
                        return r;
                      });
  if (!r) return out;
  r.save(a);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor linalg_cholesky(const Tensor& a, bool upper) {
  Tensor out = ops::linalg_cholesky(a, upper);
  Recorder r =
      record("LinalgCholeskyExBackward0", {&a}, [upper](const FormulaNode&, const Grads& g, S s) {
        // With A = L L^T: dA = L^-T Phi(L^T gL) L^-1, Phi the lower triangle
        // with its diagonal halved, then made symmetric.
        Tensor l = upper ? mT(s[0]) : s[0];
        Tensor gl = upper ? mT(g[0]) : g[0];
        Tensor m = tril(matmul(mT(l), gl), 0, false);
        m = mul(add(m, mT(tril(m, -1, false))), num(0.5));
        m = linalg_solve(mT(l), m, /*left=*/true);
        return Grads{linalg_solve(l, m, /*left=*/false)};
      });
  if (!r) return out;
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor linalg_svdvals(const Tensor& a) {
  Tensor out = ops::linalg_svdvals(a);
  Recorder r = record("LinalgSvdBackward0", {&a}, [](const FormulaNode&, const Grads& g, S s) {
    // dA = U diag(g) V^T, from the reduced SVD (the singular values assumed distinct).
    auto [u, sv, vh] = ops::linalg_svd(s[0], /*full_matrices=*/false);
    return Grads{matmul(mul(u, unsqueeze(g[0], -2)), vh)};
  });
  if (!r) return out;
  r.save(a);
  set_history(r, {&out});
  return out;
}

Tensor linalg_eigvalsh(const Tensor& a, const std::string& uplo) {
  Tensor out = ops::linalg_eigvalsh(a, uplo);
  Recorder r = record("LinalgEighBackward0", {&a}, [uplo](const FormulaNode&, const Grads& g, S s) {
    // dA = V diag(g) V^T (the eigenvalues assumed distinct).
    auto [w, v] = ops::linalg_eigh(s[0], uplo);
    return Grads{matmul(mul(v, unsqueeze(g[0], -2)), mT(v))};
  });
  if (!r) return out;
  r.save(a);
  set_history(r, {&out});
  return out;
}

std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& a) {
  auto [sign, logabsdet] = ops::linalg_slogdet(a);
  Recorder r = record("LinalgSlogdetBackward0", {&a}, [](const FormulaNode&, const Grads& g, S s) {
    // d log|det A| = tr(A^-1 dA): dA = g A^-T.
    Tensor scale = unsqueeze(unsqueeze(g[0], -1), -1);
    return Grads{mul(scale, mT(linalg_inv(s[0])))};
  });
  if (!r) return {sign, logabsdet};
  r.save(a);
  set_history(r, {&logabsdet});
  return {sign, logabsdet};
}

namespace {

// The differentiable ops matrix_norm is composed of (ops/composed.h).
struct DifferentiableNormOps {
  static Tensor abs(const Tensor& t) { return ag::unary(UnaryOp::Abs, t, "matrix_norm"); }
  static Tensor sum(const Tensor& t, const Shape& dims, bool keepdim) {
    return ag::sum(t, dims, keepdim, std::nullopt);
  }
  static Tensor amax(const Tensor& t, const Shape& dims, bool keepdim, bool is_max) {
    return ag::amax(t, dims, keepdim, is_max);
  }
  static Tensor norm2(const Tensor& t, const Shape& dims, bool keepdim) {
    return vector_norm(t, 2.0, dims, keepdim, std::nullopt);
  }
  static Tensor permute(const Tensor& t, const Shape& dims) { return ag::permute(t, dims); }
  static Tensor svdvals(const Tensor& t) { return linalg_svdvals(t); }
  static Tensor squeeze(const Tensor& t, const Shape& dims) { return ag::squeeze(t, dims); }
  static Tensor unsqueeze(const Tensor& t, int64_t dim) { return ag::unsqueeze(t, dim); }
};

}  // namespace

Tensor matrix_norm(const Tensor& t, const std::string& ord, const Shape& dims, bool keepdim) {
  if (!autograd::any_requires_grad({&t})) return ops::matrix_norm(t, ord, dims, keepdim);
  return ops::compose_matrix_norm<DifferentiableNormOps>(t, ord, dims, keepdim);
}

namespace {

// 1 / (w_j - w_i) off the diagonal and 0 on it, for w (..., k): eigh's and svd's coupling of
// each pair of values (equal values make it infinite: distinct ones are assumed).
Tensor pair_inverse_gaps(const Tensor& w) {
  Tensor gaps = sub(unsqueeze(w, -2), unsqueeze(w, -1));  // [i, j] = w_j - w_i
  int64_t k = w.sizes().empty() ? 0 : w.sizes().back();
  Tensor eye = ops::eye(k, k, w.dtype(), w.device());
  Tensor off = sub(num(1.0), eye);
  return mul(div(off, add(gaps, eye)), off);
}

}  // namespace

std::pair<Tensor, Tensor> linalg_eigh(const Tensor& a, const std::string& uplo) {
  auto [w, v] = ops::linalg_eigh(a, uplo);
  Recorder r = record("LinalgEighBackward0", {&a}, [](const FormulaNode&, const Grads& g, S s) {
    // A = V diag(w) V^T: dA = V (diag(gw) + F o (V^T gV)) V^T, F_ij = 1 / (w_j - w_i).
    const Tensor& w = s[0];
    const Tensor& v = s[1];
    Tensor inner = mul(pair_inverse_gaps(w), matmul(mT(v), g[1]));
    inner = add(inner, diag_embed(g[0], 0, -2, -1));
    return Grads{matmul(matmul(v, inner), mT(v))};
  });
  if (!r) return {w, v};
  r.save_output(w, 0);
  r.save_output(v, 1);
  set_history(r, {&w, &v});
  return {w, v};
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices) {
  auto [u, sv, vh] = ops::linalg_svd(a, full_matrices);
  Recorder r = record("LinalgSvdBackward0", {&a}, [](const FormulaNode&, const Grads& g, S s) {
    // A = U diag(S) Vh, reduced to k = min(m, n) (with full_matrices, the columns of U and
    // rows of Vh past k are any orthonormal completion: no gradient goes through them).
    // With J = skew(U^T gU), K = skew(V^T gV), E_ij = S_j^2 - S_i^2:
    // dA = U ((J S + S K) / E + diag(gS)) Vh + (I - U U^T) gU S^-1 Vh + U S^-1 gV^T (I - V V^T).
    int64_t k = s[1].sizes().back();
    Tensor u = narrow(s[0], -1, 0, k), vh = narrow(s[2], -2, 0, k), sv = s[1];
    Tensor gu = narrow(g[0], -1, 0, k), gvh = narrow(g[2], -2, 0, k);
    Tensor v = mT(vh), gv = mT(gvh);
    auto skew = [](const Tensor& x) { return sub(x, mT(x)); };
    Tensor utgu = matmul(mT(u), gu), vtgv = matmul(mT(v), gv);
    Tensor sq = mul(sv, sv);
    Tensor inner = add(mul(skew(utgu), unsqueeze(sv, -2)), mul(unsqueeze(sv, -1), skew(vtgv)));
    inner = add(mul(inner, pair_inverse_gaps(sq)), diag_embed(g[1], 0, -2, -1));
    Tensor ga = matmul(matmul(u, inner), vh);
    int64_t m = u.sizes()[u.ndim() - 2], n = vh.sizes().back();
    Tensor inv_s = unsqueeze(div(num(1.0), sv), -2);  // scales columns
    if (m > k) ga = add(ga, matmul(mul(sub(gu, matmul(u, utgu)), inv_s), vh));
    if (n > k) ga = add(ga, matmul(mul(u, inv_s), mT(sub(gv, matmul(v, vtgv)))));
    return Grads{ga};
  });
  if (!r) return {u, sv, vh};
  r.save_output(u, 0);
  r.save_output(sv, 1);
  r.save_output(vh, 2);
  set_history(r, {&u, &sv, &vh});
  return {u, sv, vh};
}

std::pair<Tensor, Tensor> linalg_qr(const Tensor& a, const std::string& mode) {
  std::pair<Tensor, Tensor> qr = ops::linalg_qr(a, mode);
  int64_t m = a.ndim() >= 2 ? a.sizes()[a.ndim() - 2] : 0;
  int64_t n = a.ndim() >= 2 ? a.sizes().back() : 0;
  // Differentiable where Q is returned and A has at least as many rows as columns; elsewhere
  // the results are left to Note [Ops without a derivative].
  if (mode == "r" || m < n) return qr;
  Recorder r = record("LinalgQrBackward0", {&a}, [](const FormulaNode&, const Grads& g, S s) {
    // With M = gR R^T - Q^T gQ and sym(X) = triu(X) + triu(X)^T - diag(X):
    // dA = (gQ + Q sym(M)) R^-T.
    const Tensor &q = s[0], &rr = s[1];
    Tensor upper = tril(sub(matmul(g[1], mT(rr)), matmul(mT(q), g[0])), 0, /*upper=*/true);
    Tensor sym = add(upper, mT(tril(upper, 1, /*upper=*/true)));
    return Grads{linalg_solve(mT(rr), add(g[0], matmul(q, sym)), /*left=*/false)};
  });
  if (!r) return qr;
  r.save_output(qr.first, 0);
  r.save_output(qr.second, 1);
  set_history(r, {&qr.first, &qr.second});
  return qr;
}

}  // namespace genesis::ag

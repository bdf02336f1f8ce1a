#pragma once
// matrix_norm and diff as compositions of a few ops, written once for two sets of them: ops::
// composes them of the plain ops, ag:: of the differentiable ones (so their gradients are the
// parts', as PyTorch composes them).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace genesis::ops {

// Note [Norms from singular values]: ord 2 is the largest singular value, -2 the smallest and
// 'nuc' their sum. The two matrix dims move to the end (a view) for linalg_svdvals, which
// factors the batch with LAPACK or cuSOLVER; keepdim puts size-1 dims back where they were.
// As in PyTorch, an empty matrix has norm 0 for 2 and 'nuc', and -2 (a minimum of nothing)
// raises. Ord 1/-1 sum |A| over the rows then take the max/min over the columns; inf/-inf the
// other way round; "fro" is the vector 2-norm over both dims.
//
// Ops provides: abs(t), sum(t, dims, keepdim), amax(t, dims, keepdim, is_max), norm2(t, dims,
// keepdim), permute(t, dims), svdvals(t), squeeze(t, dims), unsqueeze(t, dim).
template <typename Ops>
Tensor compose_matrix_norm(const Tensor& t, const std::string& ord, const Shape& dims,
                           bool keepdim) {
  const char* op = "matrix_norm";
  GENESIS_CHECK_VALUE(t.ndim() >= 2, op, "expects a tensor with at least 2 dimensions, got ",
                      t.ndim());
  GENESIS_CHECK_VALUE(dims.size() == 2, op, "dim must be a pair of dims, got ", shape_str(dims));
  int64_t rows = wrap_dim(dims[0], t.ndim(), op), cols = wrap_dim(dims[1], t.ndim(), op);
  GENESIS_CHECK_VALUE(rows != cols, op, "the two dims must differ, got ", shape_str(dims));
  GENESIS_CHECK_TYPE(is_floating_point(t.dtype()), op,
                     "expected a floating point tensor as input, got ",
                     scalar_type_name(t.dtype()));
  if (ord == "fro") return Ops::norm2(t, Shape{rows, cols}, keepdim);
  if (ord == "2" || ord == "-2" || ord == "nuc") {
    Shape order;
    for (int64_t d = 0; d < t.ndim(); ++d)
      if (d != rows && d != cols) order.push_back(d);
    order.push_back(rows);
    order.push_back(cols);
    Tensor values = Ops::svdvals(Ops::permute(t, order));  // (..., min(m, n))
    Tensor out;
    if (ord == "nuc" || (ord == "2" && values.sizes().back() == 0)) {
      out = Ops::sum(values, Shape{-1}, false);
    } else {
      GENESIS_CHECK_KIND_(ErrorKind::Index, values.sizes().back() > 0, op,
                          "ord -2 of an empty matrix: the smallest of no singular values");
      out = Ops::amax(values, Shape{-1}, false, ord == "2");
    }
    if (!keepdim) return out;
    for (int64_t d : {std::min(rows, cols), std::max(rows, cols)}) out = Ops::unsqueeze(out, d);
    return out;
  }
  bool by_columns = ord == "1" || ord == "-1";  // sum over rows, then max/min over columns
  GENESIS_CHECK_VALUE(by_columns || ord == "inf" || ord == "-inf", op,
                      "ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got ", ord);
  bool is_max = ord == "1" || ord == "inf";
  int64_t summed = by_columns ? rows : cols, extreme = by_columns ? cols : rows;
  Tensor sums = Ops::sum(Ops::abs(t), Shape{summed}, true);
  Tensor out = Ops::amax(sums, Shape{extreme}, true, is_max);
  return keepdim ? out : Ops::squeeze(out, Shape{rows, cols});
}

// The n-th forward difference along dim, after joining prepend and append along it. Ops
// provides cat(parts, dim), narrow(t, dim, start, length) and subtract(later, earlier) (bool:
// "changed", as PyTorch's logical xor).
template <typename Ops>
Tensor compose_diff(const Tensor& t, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                    const std::optional<Tensor>& append) {
  const char* op = "diff";
  GENESIS_CHECK_VALUE(t.ndim() >= 1, op, "expects a tensor with at least 1 dimension");
  GENESIS_CHECK_VALUE(n >= 0, op, "order must be non-negative, got ", n);
  int64_t d = wrap_dim(dim, t.ndim(), op);
  Tensor x = t;
  if (prepend || append) {
    std::vector<Tensor> parts;
    if (prepend) parts.push_back(*prepend);
    parts.push_back(t);
    if (append) parts.push_back(*append);
    x = Ops::cat(parts, d);
  }
  for (int64_t i = 0; i < n && x.sizes()[d] > 0; ++i) {
    int64_t size = x.sizes()[d];
    x = Ops::subtract(Ops::narrow(x, d, 1, size - 1), Ops::narrow(x, d, 0, size - 1));
  }
  return x;
}

}  // namespace genesis::ops

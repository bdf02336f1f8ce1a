#include "ops/triangular.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

// Whether each (row, col) of a rows x cols matrix is kept: col - row <= k (lower) or >= k
// (upper), as a bool (rows, cols) tensor that broadcasts over the batch dims.
Tensor triangle_mask(int64_t rows, int64_t cols, int64_t k, bool lower, Device device) {
  Tensor r =
      view(arange(Scalar(int64_t{0}), Scalar(rows), Scalar(int64_t{1}), ScalarType::Int64, device),
           {rows, 1});
  Tensor c =
      view(arange(Scalar(int64_t{0}), Scalar(cols), Scalar(int64_t{1}), ScalarType::Int64, device),
           {1, cols});
  Tensor diff = binary(BinaryOp::Sub, c, r, "tril");
  return binary(lower ? BinaryOp::Le : BinaryOp::Ge, diff, Scalar(k), lower ? "tril" : "triu");
}

Tensor triangle(const Tensor& t, int64_t k, bool lower, const char* op) {
  GENESIS_CHECK_VALUE(t.ndim() >= 2, op, "expects a tensor with at least 2 dimensions, got ",
                      t.ndim());
  int64_t rows = t.sizes()[t.ndim() - 2], cols = t.sizes()[t.ndim() - 1];
  // Past every element the answer is the tensor or zeros; clamping keeps the comparison exact.
  k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
  Scalar zero = t.dtype() == ScalarType::Bool ? Scalar(false) : Scalar(int64_t{0});
  return where(triangle_mask(rows, cols, k, lower, t.device()), t, zero);
}

}  // namespace

Tensor tril(const Tensor& t, int64_t k) { return triangle(t, k, true, "tril"); }
Tensor triu(const Tensor& t, int64_t k) { return triangle(t, k, false, "triu"); }
void tril_(const Tensor& t, int64_t k) {
  check_writable(t, "tril_");
  copy_(t, triangle(t, k, true, "tril_"));
}
void triu_(const Tensor& t, int64_t k) {
  check_writable(t, "triu_");
  copy_(t, triangle(t, k, false, "triu_"));
}

namespace {

Tensor triangle_indices(int64_t rows, int64_t cols, int64_t offset, bool lower, ScalarType dtype,
                        Device device, const char* op) {
  GENESIS_CHECK_VALUE(rows >= 0 && cols >= 0, op, "row and col must be non-negative, got ", rows,
                      " and ", cols);
  GENESIS_CHECK_TYPE(dtype == ScalarType::Int64 || dtype == ScalarType::Int32, op,
                     "dtype must be int64 or int32");
  offset = std::clamp<int64_t>(offset, -rows - 1, cols + 1);
  // Count first (Note [Checked sizes]): the pairs of one row are a clamped range of columns.
  auto row_range = [&](int64_t r) {
    int64_t lo = lower ? 0 : std::max<int64_t>(r + offset, 0);
    int64_t hi = lower ? std::min<int64_t>(r + offset + 1, cols) : cols;
    return std::pair<int64_t, int64_t>{lo, std::max(lo, hi)};
  };
  int64_t n = 0;
  for (int64_t r = 0; r < rows; ++r) {
    auto [lo, hi] = row_range(r);
    n = checked_add(n, hi - lo, op);
  }
  Tensor host = Tensor::empty({2, n}, ScalarType::Int64, Device{DeviceType::CPU, 0});
  checked_nbytes(checked_mul(2, n, op), 8, op);
  int64_t* out = host.mutable_data_as<int64_t>();
  int64_t i = 0;
  for (int64_t r = 0; r < rows; ++r) {
    auto [lo, hi] = row_range(r);
    for (int64_t c = lo; c < hi; ++c, ++i) {
      out[i] = r;
      out[n + i] = c;
    }
  }
  return to(host, dtype, device, false);
}

}  // namespace

Tensor tril_indices(int64_t rows, int64_t cols, int64_t offset, ScalarType dtype, Device device) {
  return triangle_indices(rows, cols, offset, true, dtype, device, "tril_indices");
}

Tensor triu_indices(int64_t rows, int64_t cols, int64_t offset, ScalarType dtype, Device device) {
  return triangle_indices(rows, cols, offset, false, dtype, device, "triu_indices");
}

Tensor diag(const Tensor& t, int64_t k) {
  GENESIS_CHECK_VALUE(t.ndim() == 1 || t.ndim() == 2, "diag", "expects a 1-d or 2-d tensor, got ",
                      t.ndim(), "-d");
  if (t.ndim() == 2) return clone(diagonal(t, k, 0, 1));
  return diag_embed(t, k, 0, 1);
}

Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  const char* op = "diag_embed";
  GENESIS_CHECK_VALUE(t.ndim() >= 1, op, "expects a tensor with at least 1 dimension");
  int64_t out_ndim = t.ndim() + 1;
  GENESIS_CHECK_VALUE(out_ndim <= kMaxDims, op, "a tensor has at most ", kMaxDims, " dimensions");
  int64_t a = wrap_dim(dim1, out_ndim, op), b = wrap_dim(dim2, out_ndim, op);
  GENESIS_CHECK_VALUE(a != b, op, "dim1 and dim2 cannot be the same dimension (", dim1, ", ", dim2,
                      ")");
  int64_t length = t.sizes()[t.ndim() - 1];
  int64_t reach = offset >= 0 ? offset : offset == INT64_MIN ? INT64_MAX : -offset;
  int64_t side = checked_add(length, reach, op);
  // The output: the batch dims in order, with the two new dims of size `side` at a and b.
  Shape batch(t.sizes().begin(), t.sizes().end() - 1);
  Shape sizes;
  size_t next = 0;
  for (int64_t d = 0; d < out_ndim; ++d) sizes.push_back(d == a || d == b ? side : batch[next++]);
  checked_numel(sizes, op);
  Tensor out = full(sizes, t.dtype() == ScalarType::Bool ? Scalar(false) : Scalar(int64_t{0}),
                    t.dtype(), t.device(), op);
  if (length > 0) copy_(diagonal(out, offset, a, b), t);
  return out;
}

}  // namespace genesis::ops

#include "ops/sort.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "core/errors.h"
#include "core/shape.h"
#include "cpu/sort.h"
#include "cpu/topk.h"
#include "cuda/sort.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/elementwise_composed.h"
#include "ops/index_ops.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/reduce.h"
#include "ops/reduce_composite.h"
#include "ops/scan.h"
#include "ops/search.h"
#include "ops/views.h"

namespace genesis::ops {

// Note [Rows for sorting]
// Every op here moves its dim last and makes the tensor contiguous, so the backends see
// [rows, cols] and sort each row; the results are moved back. A 0-d tensor is one row of one
// item. The backends produce the sorted positions and, for sort(), the sorted values decoded
// from the keys (Note [Values from keys]); topk reads its values back through the positions.

namespace {

int64_t dim_of(const Tensor& t, int64_t dim, const char* op) {
  return wrap_dim(dim, std::max<int64_t>(t.ndim(), 1), op);
}

Tensor rows_along(const Tensor& t, int64_t dim) {
  if (t.ndim() == 0) return contiguous(reshape(t, Shape{1}));
  return contiguous(movedim(t, Shape{dim}, Shape{-1}));
}

// A result with the sorted dim last back in `like`'s layout (dim kept).
Tensor back_from_rows(const Tensor& r, const Tensor& like, int64_t dim) {
  if (like.ndim() == 0) return reshape(r, Shape{});
  return movedim(r, Shape{-1}, Shape{dim});
}

// A per-row result [..., 1] back to `like`'s shape without dim (or with it as 1 when keepdim).
Tensor reduced_from_rows(const Tensor& r, const Tensor& like, int64_t dim, bool keepdim) {
  if (like.ndim() == 0) return reshape(r, Shape{});
  return keepdim ? movedim(r, Shape{-1}, Shape{dim}) : squeeze(r, Shape{-1});
}

void sort_positions(const Tensor& rows, const Tensor& positions, bool descending) {
  if (rows.is_cuda())
    cuda::sort_rows(rows, positions, descending);
  else
    cpu::sort_rows(rows, positions, descending);
}

// (values, positions) of `t` sorted along dim, the dim last and contiguous.
std::pair<Tensor, Tensor> sorted_rows(const Tensor& t, int64_t dim, bool descending) {
  Tensor rows = rows_along(t, dim);
  Tensor positions = Tensor::empty(rows.sizes(), ScalarType::Int64, rows.device());
  if (rows.numel() == 0) return {rows, positions};
  // The values come from the sorted keys (Note [Values from keys]), not a gather.
  Tensor values = Tensor::empty(rows.sizes(), rows.dtype(), rows.device());
  if (rows.is_cuda())
    cuda::sort_rows(rows, positions, descending, &values);
  else
    cpu::sort_rows(rows, positions, descending, &values);
  return {values, positions};
}

// Rows at least this long take the radix select in topk on CUDA (shorter ones sort fast).
constexpr int64_t kSelectMinItems = int64_t{1} << 16;

int64_t size_along(const Tensor& t, int64_t dim) { return t.ndim() == 0 ? 1 : t.sizes()[dim]; }

void check_nonempty_dim(const Tensor& t, int64_t dim, const char* op) {
  GENESIS_CHECK_INDEX(t.numel() > 0 || size_along(t, dim) > 0, op, "expected reduction dim ", dim,
                      " to have non-zero size");
}

// The number of NaNs in each sorted row ([..., 1], int64), or null for types without NaN.
Tensor nan_counts(const Tensor& sorted) {
  if (!is_floating_point(sorted.dtype())) return Tensor();
  return sum(isnan(sorted), Shape{-1}, true, ScalarType::Int64);
}

// Takes position p ([..., 1] int64 tensor) from sorted values and positions.
std::pair<Tensor, Tensor> take_at(const Tensor& values, const Tensor& positions, const Tensor& p) {
  return {gather(values, -1, p), gather(positions, -1, p)};
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending) {
  int64_t d = dim_of(t, dim, "sort");
  auto [values, positions] = sorted_rows(t, d, descending);
  return {back_from_rows(values, t, d), back_from_rows(positions, t, d)};
}

Tensor argsort(const Tensor& t, int64_t dim, bool descending) {
  int64_t d = dim_of(t, dim, "argsort");
  Tensor rows = rows_along(t, d);
  Tensor positions = Tensor::empty(rows.sizes(), ScalarType::Int64, rows.device());
  sort_positions(rows, positions, descending);
  return back_from_rows(positions, t, d);
}

std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest) {
  int64_t d = dim_of(t, dim, "topk");
  GENESIS_CHECK(k >= 0 && k <= size_along(t, d), "topk", "k (", k,
                ") is out of range for a dim of size ", size_along(t, d));
  if (t.is_cuda() && k > 0 && t.numel() == size_along(t, d) && t.numel() >= kSelectMinItems) {
    // One long row: a radix select finds the k first items without sorting the row.
    Tensor row = contiguous(reshape(t, Shape{-1}));
    Tensor positions = Tensor::empty(Shape{k}, ScalarType::Int64, t.device());
    if (cuda::select_top_row(row, k, largest, positions)) {
      Tensor values = gather_along_dim(row, 0, positions, true);
      Shape shape = t.ndim() == 0 ? Shape{} : t.sizes();
      if (t.ndim() > 0) shape[d] = k;
      return {reshape(values, shape), reshape(positions, shape)};
    }
  }
  if (!t.is_cuda() && t.numel() > 0 && k > 0 && k < size_along(t, d)) {
    // On the CPU, a running bound or a selection of k per row instead of a sort of the row
    // (cpu/topk.cpp); the same positions as the sort's prefix.
    Tensor rows = rows_along(t, d);
    Shape shape = rows.sizes();
    shape.back() = k;
    Tensor positions = Tensor::empty(shape, ScalarType::Int64, rows.device());
    cpu::top_rows(rows, k, largest, positions);
    Tensor values = gather(rows, -1, positions);
    return {contiguous(back_from_rows(values, t, d)), contiguous(back_from_rows(positions, t, d))};
  }
  auto [values, positions] = sorted_rows(t, d, largest);
  return {contiguous(back_from_rows(narrow(values, -1, 0, k), t, d)),
          contiguous(back_from_rows(narrow(positions, -1, 0, k), t, d))};
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  int64_t d = dim_of(t, dim, "kthvalue");
  GENESIS_CHECK(k >= 1 && k <= size_along(t, d), "kthvalue", "k (", k,
                ") is out of range for a dim of size ", size_along(t, d));
  auto [values, positions] = sorted_rows(t, d, false);
  return {contiguous(reduced_from_rows(narrow(values, -1, k - 1, 1), t, d, keepdim)),
          contiguous(reduced_from_rows(narrow(positions, -1, k - 1, 1), t, d, keepdim))};
}

std::pair<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan) {
  const char* op = ignore_nan ? "nanmedian" : "median";
  int64_t d = dim_of(t, dim, op);
  check_nonempty_dim(t, d, op);
  auto [values, positions] = sorted_rows(t, d, false);
  int64_t n = size_along(t, d);
  Shape row_shape = values.sizes();
  row_shape.back() = 1;
  Tensor p;
  Tensor nans = nan_counts(values);
  if (!nans.defined()) {
    p = full(row_shape, Scalar(int64_t{(n - 1) / 2}), ScalarType::Int64, t.device());
  } else if (ignore_nan) {
    // The lower median of the n - nans items before the NaNs; for a row of NaNs only, the middle
    // NaN (position (n - 1) / 2), as PyTorch.
    Tensor valid = binary(BinaryOp::Sub, Scalar(n), nans, op);
    Tensor lower = binary(BinaryOp::FloorDiv, binary(BinaryOp::Sub, valid, Scalar(int64_t{1}), op),
                          Scalar(int64_t{2}), op);
    p = where(binary(BinaryOp::Gt, valid, Scalar(int64_t{0}), op), lower,
              Scalar(int64_t{(n - 1) / 2}));
  } else {
    // A row with NaNs gives its first NaN (the stable sort keeps them in input order).
    p = where(binary(BinaryOp::Gt, nans, Scalar(int64_t{0}), op),
              binary(BinaryOp::Sub, Scalar(n), nans, op), Scalar(int64_t{(n - 1) / 2}));
  }
  auto [v, i] = take_at(values, positions, p);
  return {contiguous(reduced_from_rows(v, t, d, keepdim)),
          contiguous(reduced_from_rows(i, t, d, keepdim))};
}

Tensor median_all(const Tensor& t, bool ignore_nan) {
  const char* op = ignore_nan ? "nanmedian" : "median";
  if (t.numel() == 0) {
    GENESIS_CHECK(is_floating_point(t.dtype()), op,
                  "the median of an empty tensor is only defined (as NaN) for floating dtypes");
    return full(Shape{}, Scalar(std::nan("")), t.dtype(), t.device());
  }
  return median(reshape(t, Shape{-1}), 0, false, ignore_nan).first;
}

std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim) {
  int64_t d = dim_of(t, dim, "mode");
  check_nonempty_dim(t, d, "mode");
  auto [values, positions] = sorted_rows(t, d, false);
  Shape out_sizes = values.sizes();
  out_sizes.back() = 1;
  Tensor v = Tensor::empty(out_sizes, t.dtype(), t.device());
  Tensor i = Tensor::empty(out_sizes, ScalarType::Int64, t.device());
  if (values.numel() > 0) {
    if (t.is_cuda())
      cuda::mode_rows(values, positions, v, i);
    else
      cpu::mode_rows(values, positions, v, i);
  }
  return {reduced_from_rows(v, t, d, keepdim), reduced_from_rows(i, t, d, keepdim)};
}

int64_t check_quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim,
                       const std::string& interpolation, const char* op) {
  GENESIS_CHECK_TYPE(t.dtype() == ScalarType::Float32 || t.dtype() == ScalarType::Float64, op,
                     "expected a float32 or float64 input, but got ", scalar_type_name(t.dtype()));
  GENESIS_CHECK_TYPE(q.dtype() == t.dtype(), op, "expected q of the input's dtype ",
                     scalar_type_name(t.dtype()), ", but got ", scalar_type_name(q.dtype()));
  GENESIS_CHECK(q.ndim() <= 1, op, "expected q to be a number or a 0-d or 1-d tensor, but it has ",
                q.ndim(), " dims");
  GENESIS_CHECK(q.device() == t.device(), op, "expected q on ", t.device().str(), ", but it is on ",
                q.device().str());
  static const char* kModes[] = {"linear", "lower", "higher", "midpoint", "nearest"};
  GENESIS_CHECK_VALUE(
      std::find(std::begin(kModes), std::end(kModes), interpolation) != std::end(kModes), op,
      "interpolation must be linear, lower, higher, midpoint or nearest, not '", interpolation,
      "'");
  if (q.numel() > 0) {
    Tensor in_range = all(binary(BinaryOp::LogicalAnd, binary(BinaryOp::Ge, q, Scalar(0.0), op),
                                 binary(BinaryOp::Le, q, Scalar(1.0), op), op),
                          std::nullopt, false);
    GENESIS_CHECK(scalar_of(in_range, op).to_int() != 0, op, "q must be in the range [0, 1]");
  }
  int64_t d = dim ? dim_of(t, *dim, op) : 0;
  int64_t n = dim ? size_along(t, d) : t.numel();
  GENESIS_CHECK_INDEX(n > 0, op, "expected reduction dim ", d, " to have non-zero size");
  return d;
}

Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation, bool ignore_nan, const char* op) {
  int64_t d = check_quantile(t, q, dim, interpolation, op);
  Tensor input = dim ? t : reshape(t, Shape{-1});
  int64_t n = size_along(input, d);
  Tensor values = sorted_rows(input, d, false).first;
  Shape rows_shape = values.sizes();  // [..., n]
  rows_shape.pop_back();
  Shape target = rows_shape;  // [..., Q]
  target.push_back(q.numel());
  Shape q_shape(rows_shape.size(), 1);
  q_shape.push_back(q.numel());
  Tensor qs = reshape(q, q_shape);  // [1, ..., 1, Q]
  // ranks: q * (n - 1), or q * (valid - 1) with valid the items before the NaNs (ignore_nan).
  Tensor nans = nan_counts(values);
  Tensor ranks;
  if (ignore_nan) {
    Tensor last = binary(BinaryOp::Maximum, binary(BinaryOp::Sub, Scalar(n - 1), nans, op),
                         Scalar(int64_t{0}), op);
    ranks = binary(BinaryOp::Mul, qs, copy_to(last, t.dtype(), t.device()), op);
  } else {
    ranks = binary(BinaryOp::Mul, qs, Scalar(static_cast<double>(n - 1)), op);
  }
  ranks = contiguous(expand(ranks, target));
  Tensor lo = unary(UnaryOp::Floor, ranks, op), hi = unary(UnaryOp::Ceil, ranks, op);
  auto at = [&](const Tensor& r) {
    return gather(values, -1, copy_to(r, ScalarType::Int64, t.device()));
  };
  Tensor result;
  if (interpolation == "lower") {
    result = at(lo);
  } else if (interpolation == "higher") {
    result = at(hi);
  } else if (interpolation == "nearest") {
    result = at(unary(UnaryOp::Round, ranks, op));
  } else {
    Tensor below = at(lo), above = at(hi);
    if (interpolation == "midpoint")
      result = binary(BinaryOp::Mul, binary(BinaryOp::Add, below, above, op), Scalar(0.5), op);
    else
      result = binary(BinaryOp::Add, below,
                      binary(BinaryOp::Mul, binary(BinaryOp::Sub, above, below, op),
                             binary(BinaryOp::Sub, ranks, lo, op), op),
                      op);
  }
  if (nans.defined() && !ignore_nan)  // a row holding NaN has NaN quantiles
    result =
        where(binary(BinaryOp::Gt, nans, Scalar(int64_t{0}), op), Scalar(std::nan("")), result);
  // [..., Q] -> [Q, ...] with the reduced dim dropped (or kept as 1).
  if (keepdim && t.ndim() > 0) {  // a 0-d input gives a 0-d result (per q), as PyTorch
    if (dim) {
      result = movedim(unsqueeze(result, -2), Shape{-2}, Shape{d});  // [..., 1@d, ..., Q]
    } else {
      Shape s(t.ndim(), 1);
      s.push_back(q.numel());
      result = reshape(result, s);
    }
  }
  result = movedim(result, Shape{-1}, Shape{0});
  if (q.ndim() == 0) result = squeeze(result, Shape{0});
  return contiguous(result);
}

namespace {

Tensor int64_full(int64_t n, int64_t value, Device device) {
  return full(Shape{n}, Scalar(value), ScalarType::Int64, device);
}

// counts and run ids from the run-start mask of n items: starts = positions of true,
// counts = differences of consecutive starts (and n), run id of item j = the number of starts
// at or before j, minus one (a scan of the mask).
Tensor run_counts(const Tensor& starts_mask, int64_t n) {
  Tensor starts = nonzero(starts_mask)[0];
  return diff(starts, 1, 0, std::nullopt, int64_full(1, n, starts.device()));
}

Tensor run_ids_of(const Tensor& starts_mask) {
  return binary(BinaryOp::Sub, cumsum(starts_mask, 0, ScalarType::Int64), Scalar(int64_t{1}),
                "unique");
}

void runs_of(const Tensor& starts_mask, int64_t n, UniqueResult& r, Tensor& run_ids) {
  r.counts = run_counts(starts_mask, n);
  run_ids = run_ids_of(starts_mask);
}

// The run starts of 1-d values (true at 0 and where an item differs from the one before).
Tensor run_starts(const Tensor& values) {
  int64_t n = values.sizes()[0];
  Tensor mask = Tensor::empty(Shape{n}, ScalarType::Bool, values.device());
  fill_(narrow(mask, 0, 0, 1), Scalar(true));
  copy_(narrow(mask, 0, 1, n - 1),
        binary(BinaryOp::Ne, narrow(values, 0, 1, n - 1), narrow(values, 0, 0, n - 1), "unique"));
  return mask;
}

// The same for slices: rows [n, m] differ when any of their items does.
Tensor run_starts_2d(const Tensor& rows) {
  int64_t n = rows.sizes()[0];
  Tensor mask = Tensor::empty(Shape{n}, ScalarType::Bool, rows.device());
  fill_(narrow(mask, 0, 0, 1), Scalar(true));
  Tensor differs =
      binary(BinaryOp::Ne, narrow(rows, 0, 1, n - 1), narrow(rows, 0, 0, n - 1), "unique");
  copy_(narrow(mask, 0, 1, n - 1), any(differs, Shape{1}, false));
  return mask;
}

// The key bits that can differ among the integers of `flat` (Note [Unique of integers] in
// kernels/unique.cu): those up to the highest bit where its smallest and largest items differ.
// Costs one wait for the device, which unique() has anyway; -1 (all bits) for 16-bit types and
// narrower, which sort in one or two passes regardless.
int differing_bits(const Tensor& flat) {
  if (itemsize(flat.dtype()) <= 2) return -1;
  Tensor ends =
      to(stack({extreme(flat, false), extreme(flat, true)}, 0), ScalarType::Int64, Device{}, false);
  uint64_t differ = static_cast<uint64_t>(ends.data_as<int64_t>()[0]) ^
                    static_cast<uint64_t>(ends.data_as<int64_t>()[1]);
  return std::max(static_cast<int>(std::bit_width(differ)), 1);
}

// unique() on CUDA without the inverse (of integers, also with counts): a sort of the keys
// alone and one CUB pass (Note [Unique of integers], Note [Unique of floats] in
// kernels/unique.cu) instead of a sort that carries positions and a compaction.
UniqueResult unique_cuda_values(const Tensor& flat, bool want_counts) {
  int64_t n = flat.numel();
  Tensor values = Tensor::empty(Shape{n}, flat.dtype(), flat.device());
  Tensor counts =
      want_counts ? Tensor::empty(Shape{n}, ScalarType::Int64, flat.device()) : Tensor();
  bool integral = is_integral(flat.dtype(), true);
  Tensor found = Tensor::empty(Shape{2}, ScalarType::Int64, flat.device());
  if (integral)
    cuda::unique_integers(flat, differing_bits(flat), values, want_counts ? &counts : nullptr,
                          narrow(found, 0, 0, 1));
  else
    cuda::unique_floats(flat, values, found);
  Tensor host = to(found, ScalarType::Int64, Device{}, false);
  int64_t m = host.data_as<int64_t>()[0];
  int64_t leading_nans = integral ? 0 : host.data_as<int64_t>()[1];
  // Note [Room of unique's results]: like torch, the result keeps the room for n when a good
  // part of it is used (a copy of a result of 2^27 floats cost 3.5% of the unique of 2^28); a
  // copy of the first m gives the room back when less than a quarter of it is used (a copy of
  // at most n / 4, small beside the sort), so the room held is at most 4x the result.
  auto first = [&](const Tensor& t) {
    return 4 * m >= n ? narrow(t, 0, 0, m) : clone(narrow(t, 0, 0, m));
  };
  UniqueResult r;
  r.values = first(values);
  if (want_counts) r.counts = first(counts);
  if (leading_nans > 0)  // Note [Unique of floats]: every NaN goes last
    r.values = cat(
        {narrow(r.values, 0, leading_nans, m - leading_nans), narrow(r.values, 0, 0, leading_nans)},
        0);
  return r;
}

// Only the parts asked for are computed: the inverse costs a scan and a scatter, the counts a
// compaction.
UniqueResult unique_flat(const Tensor& t, bool sort_first, UniqueParts parts) {
  Tensor flat = reshape(t, Shape{-1});
  int64_t n = flat.numel();
  UniqueResult r;
  if (n == 0) {
    r.values = Tensor::empty(Shape{0}, t.dtype(), t.device());
    r.inverse = Tensor::empty(t.sizes(), ScalarType::Int64, t.device());
    r.counts = Tensor::empty(Shape{0}, ScalarType::Int64, t.device());
    return r;
  }
  if (sort_first && !parts.inverse && flat.is_cuda() &&
      (is_integral(flat.dtype(), true) || !parts.counts))
    return unique_cuda_values(contiguous(flat), parts.counts);
  Tensor values = flat, order;
  if (sort_first) std::tie(values, order) = sorted_rows(flat, 0, false);
  Tensor mask = run_starts(values);
  r.values = masked_select(values, mask);
  if (parts.counts) r.counts = run_counts(mask, n);
  if (!parts.inverse) return r;
  Tensor run_ids = run_ids_of(mask);
  if (sort_first) {
    r.inverse = Tensor::empty(Shape{n}, ScalarType::Int64, t.device());
    scatter_(r.inverse, 0, order, run_ids);
  } else {
    r.inverse = run_ids;
  }
  r.inverse = reshape(r.inverse, t.sizes());
  return r;
}

UniqueResult unique_slices(const Tensor& t, int64_t dim, bool sort_first, const char* op) {
  int64_t d = dim_of(t, dim, op);
  GENESIS_CHECK_INDEX(t.ndim() > 0, op, "a 0-d tensor has no dim ", dim);
  Tensor moved = contiguous(movedim(t, Shape{d}, Shape{0}));
  Shape slice_shape(moved.sizes().begin() + 1, moved.sizes().end());
  int64_t n = moved.sizes()[0];
  int64_t m = numel_of(slice_shape);
  UniqueResult r;
  if (n == 0) {
    r.values = t;
    r.inverse = Tensor::empty(Shape{0}, ScalarType::Int64, t.device());
    r.counts = Tensor::empty(Shape{0}, ScalarType::Int64, t.device());
    return r;
  }
  Tensor rows = reshape(moved, Shape{n, m});
  Tensor order;
  if (sort_first) {
    // Note [Lexicographic slices]: stable sorts by each column from the last to the first leave
    // the rows in lexicographic order (an LSD sort with whole columns as digits).
    order =
        arange(Scalar(int64_t{0}), Scalar(n), Scalar(int64_t{1}), ScalarType::Int64, t.device());
    for (int64_t c = m - 1; c >= 0; --c) {
      Tensor column = index_select(select(rows, 1, c), 0, order);
      order = index_select(order, 0, argsort(column, 0, false));
    }
    rows = index_select(rows, 0, order);
  }
  Tensor mask = run_starts_2d(rows);
  Tensor run_ids;
  runs_of(mask, n, r, run_ids);
  Tensor picked = index_select(rows, 0, nonzero(mask)[0]);
  Shape out_shape = slice_shape;
  out_shape.insert(out_shape.begin(), picked.sizes()[0]);
  r.values = contiguous(movedim(reshape(picked, out_shape), Shape{0}, Shape{d}));
  if (sort_first) {
    r.inverse = Tensor::empty(Shape{n}, ScalarType::Int64, t.device());
    scatter_(r.inverse, 0, order, run_ids);
  } else {
    r.inverse = run_ids;
  }
  return r;
}

}  // namespace

UniqueResult unique(const Tensor& t, std::optional<int64_t> dim, UniqueParts parts) {
  return dim ? unique_slices(t, *dim, true, "unique") : unique_flat(t, true, parts);
}

UniqueResult unique_consecutive(const Tensor& t, std::optional<int64_t> dim, UniqueParts parts) {
  return dim ? unique_slices(t, *dim, false, "unique_consecutive") : unique_flat(t, false, parts);
}

}  // namespace genesis::ops

#include "ops/rearrange.h"

#include <vector>

#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/index_ops.h"
#include "ops/join.h"
#include "ops/reduce.h"
#include "ops/scan.h"
#include "ops/search.h"
#include "ops/views.h"

namespace genesis::ops {

Tensor flip(const Tensor& t, const Shape& dims) {
  std::vector<bool> seen(static_cast<size_t>(t.ndim()), false);
  Tensor reversed = t;
  for (int64_t dim : dims) {
    int64_t d = wrap_dim(dim, t.ndim(), "flip");
    if (t.ndim() == 0) continue;
    GENESIS_CHECK_SHAPE(!seen[d], "flip", "dim ", d, " appears more than once in ",
                        shape_str(dims));
    seen[d] = true;
    reversed = slice(reversed, d, std::nullopt, std::nullopt, -1);  // a negative-stride view
  }
  return clone(reversed);
}

namespace {

// Rolls one dim: the last `shift` elements move to the front, by two copies into the output.
Tensor roll_dim(const Tensor& t, int64_t shift, int64_t d) {
  int64_t size = t.sizes()[d];
  Tensor out = Tensor::empty(t.sizes(), t.dtype(), t.device());
  if (size == 0 || t.numel() == 0) return out;
  int64_t s = shift % size;
  if (s < 0) s += size;
  copy_(narrow(out, d, s, size - s), narrow(t, d, 0, size - s));
  if (s > 0) copy_(narrow(out, d, 0, s), narrow(t, d, size - s, s));
  return out;
}

}  // namespace

Tensor roll(const Tensor& t, const Shape& shifts, const Shape& dims) {
  GENESIS_CHECK_SHAPE(!shifts.empty(), "roll", "shifts must be non-empty");
  if (dims.empty()) {
    GENESIS_CHECK_SHAPE(shifts.size() == 1, "roll", "with no dims, shifts must be one number, got ",
                        shape_str(shifts));
    return view(roll_dim(flatten(t, 0, -1), shifts[0], 0), t.sizes());
  }
  GENESIS_CHECK_SHAPE(shifts.size() == dims.size(), "roll", "shifts ", shape_str(shifts),
                      " and dims ", shape_str(dims), " must have the same length");
  Tensor out = t;
  for (size_t i = 0; i < dims.size(); ++i) {
    GENESIS_CHECK_INDEX(t.ndim() > 0, "roll", "cannot roll a 0-dim tensor along a dim");
    out = roll_dim(out, shifts[i], wrap_dim(dims[i], t.ndim(), "roll"));
  }
  return out;
}

Tensor repeat(const Tensor& t, const Shape& repeats) {
  const char* op = "repeat";
  GENESIS_CHECK_SHAPE(static_cast<int64_t>(repeats.size()) >= t.ndim(), op,
                      "the number of repeats (", repeats.size(),
                      ") cannot be smaller than the number of dimensions of the tensor (", t.ndim(),
                      ")");
  GENESIS_CHECK_SHAPE(static_cast<int64_t>(repeats.size()) <= kMaxDims, op, "a tensor has at most ",
                      kMaxDims, " dimensions");
  size_t lead = repeats.size() - static_cast<size_t>(t.ndim());
  // The view (r0, s0, r1, s1, ...) with stride 0 along each r, then one copy into the output
  // (r0 * s0, r1 * s1, ...), whose row-major order is exactly that view's.
  Shape sizes, strides, out_sizes;
  for (size_t d = 0; d < repeats.size(); ++d) {
    GENESIS_CHECK_SHAPE(repeats[d] >= 0, op, "repeats must be non-negative, got ",
                        shape_str(repeats));
    int64_t size = d < lead ? 1 : t.sizes()[d - lead];
    int64_t stride = d < lead ? 0 : t.strides()[d - lead];
    sizes.insert(sizes.end(), {repeats[d], size});
    strides.insert(strides.end(), {0, stride});
    out_sizes.push_back(checked_mul(repeats[d], size, op));
  }
  checked_numel(out_sizes, op);
  Tensor out = Tensor::empty(out_sizes, t.dtype(), t.device());
  if (out.numel() == 0) return out;
  Tensor source = t.as_strided(sizes, strides, t.storage_offset());
  copy_(out.as_strided(sizes, contiguous_strides(sizes), out.storage_offset()), source);
  return out;
}

Tensor tile(const Tensor& t, const Shape& reps) {
  Shape padded = reps;
  if (static_cast<int64_t>(padded.size()) < t.ndim())
    padded.insert(padded.begin(), static_cast<size_t>(t.ndim()) - padded.size(), 1);
  return repeat(t, padded);
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim) {
  const char* op = "repeat_interleave";
  GENESIS_CHECK_SHAPE(repeats >= 0, op, "repeats must be non-negative, got ", repeats);
  Tensor source = dim ? t : reshape(t, {t.numel()});
  if (source.ndim() == 0) source = reshape(source, {1});
  int64_t d = wrap_dim(dim.value_or(0), source.ndim(), op);
  // Each element followed by its copies: a new stride-0 dim after d, merged into d by the copy.
  Shape sizes = source.sizes(), strides = source.strides();
  sizes.insert(sizes.begin() + d + 1, repeats);
  strides.insert(strides.begin() + d + 1, 0);
  Shape out_sizes = source.sizes();
  out_sizes[d] = checked_mul(out_sizes[d], repeats, op);
  checked_numel(out_sizes, op);
  Tensor out = Tensor::empty(out_sizes, t.dtype(), t.device());
  if (out.numel() == 0) return out;
  copy_(out.as_strided(sizes, contiguous_strides(sizes), out.storage_offset()),
        source.as_strided(sizes, strides, source.storage_offset()));
  return out;
}

// Per-item repeats: output item j along dim comes from the item whose running total of repeats
// first exceeds j (a binary search of the inclusive scan), then one index_select. One wait for
// the device reads the smallest repeat and the total together.
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim) {
  const char* op = "repeat_interleave";
  GENESIS_CHECK_TYPE(repeats.dtype() == ScalarType::Int64 || repeats.dtype() == ScalarType::Int32,
                     op, "repeats must be an int32 or int64 tensor, but got ",
                     scalar_type_name(repeats.dtype()));
  GENESIS_CHECK(repeats.ndim() <= 1, op, "repeats must be a 0-dim or 1-dim tensor, but it has ",
                repeats.ndim(), " dims");
  GENESIS_CHECK(repeats.device() == t.device(), op, "expected repeats on ", t.device().str(),
                ", but they are on ", repeats.device().str());
  Tensor source = dim ? t : reshape(t, {t.numel()});
  if (source.ndim() == 0) source = reshape(source, {1});
  int64_t d = wrap_dim(dim.value_or(0), source.ndim(), op);
  int64_t size = source.sizes()[d];
  GENESIS_CHECK(repeats.numel() == size, op,
                "repeats must have the same size as input along dim, but got repeats.size(0) = ",
                repeats.numel(), " and input.size(", d, ") = ", size);
  Tensor counts = to(reshape(repeats, {size}), ScalarType::Int64, t.device(), false);
  int64_t total = 0;
  if (size > 0) {
    Tensor stats =
        to(stack({amax(counts, Shape{0}, false, false), sum(counts, Shape{0}, false, std::nullopt)},
                 0),
           ScalarType::Int64, kCPU, false);
    const int64_t* host = stats.data_as<int64_t>();
    GENESIS_CHECK_SHAPE(host[0] >= 0, op, "repeats can not be negative (found ", host[0], ")");
    total = host[1];
  }
  Tensor items =
      arange(Scalar(int64_t{0}), Scalar(total), Scalar(int64_t{1}), ScalarType::Int64, t.device());
  if (size == 0) return index_select(source, d, items);
  Tensor positions =
      searchsorted(cumsum(counts, 0, std::nullopt), items, false, true, std::nullopt);
  return index_select(source, d, positions);
}

Tensor rot90(const Tensor& t, int64_t k, const Shape& dims) {
  GENESIS_CHECK(dims.size() == 2, "rot90", "expected 2 dims, but got ", dims.size());
  GENESIS_CHECK(t.ndim() >= 2, "rot90", "expected a tensor of at least 2 dims, but it has ",
                t.ndim());
  int64_t d0 = wrap_dim(dims[0], t.ndim(), "rot90"), d1 = wrap_dim(dims[1], t.ndim(), "rot90");
  GENESIS_CHECK(d0 != d1, "rot90", "the two dims must differ, but both are ", d0);
  switch (((k % 4) + 4) % 4) {
    case 1:
      return contiguous(transpose(flip(t, Shape{d1}), d0, d1));
    case 2:
      return flip(t, Shape{d0, d1});
    case 3:
      return contiguous(transpose(flip(t, Shape{d0}), d0, d1));
    default:
      return clone(t);
  }
}

}  // namespace genesis::ops

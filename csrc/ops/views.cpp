#include "ops/views.h"

#include <algorithm>

#include "core/errors.h"
#include "index/slice.h"
#include "ops/convert.h"

namespace genesis::ops {

Tensor view(const Tensor& t, const Shape& shape) {
  Shape sizes = infer_size(shape, t.numel(), "view");
  auto strides = view_strides(t.sizes(), t.strides(), sizes);
  GENESIS_CHECK(strides.has_value(), "view", "view size ", shape_str(sizes),
                " is not compatible with input tensor's size ", shape_str(t.sizes()),
                " and stride ", shape_str(t.strides()),
                " (at least one dimension spans across two contiguous subspaces); "
                "use .reshape(...) instead");
  return t.as_strided(std::move(sizes), std::move(*strides), t.storage_offset());
}

Tensor reshape(const Tensor& t, const Shape& shape) {
  Shape sizes = infer_size(shape, t.numel(), "reshape");
  if (auto strides = view_strides(t.sizes(), t.strides(), sizes))
    return t.as_strided(std::move(sizes), std::move(*strides), t.storage_offset());
  Tensor dense = contiguous(t);
  return dense.as_strided(sizes, contiguous_strides(sizes), dense.storage_offset());
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  int64_t a = wrap_dim(dim0, t.ndim(), "transpose"), b = wrap_dim(dim1, t.ndim(), "transpose");
  if (t.ndim() == 0) return t;
  Shape sizes = t.sizes(), strides = t.strides();
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return t.as_strided(std::move(sizes), std::move(strides), t.storage_offset());
}

Tensor permute(const Tensor& t, const Shape& dims) {
  GENESIS_CHECK_SHAPE(static_cast<int64_t>(dims.size()) == t.ndim(), "permute",
                      "number of dims don't match: the tensor has ", t.ndim(),
                      " dimensions but the permutation ", shape_str(dims), " has ", dims.size());
  Shape sizes(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], t.ndim(), "permute");
    GENESIS_CHECK_SHAPE(!seen[d], "permute", "repeated dim ", dims[i], " in ", shape_str(dims));
    seen[d] = true;
    sizes[i] = t.sizes()[d];
    strides[i] = t.strides()[d];
  }
  return t.as_strided(std::move(sizes), std::move(strides), t.storage_offset());
}

Tensor t(const Tensor& x) {
  GENESIS_CHECK_SHAPE(x.ndim() <= 2, "t", "expects a tensor with <= 2 dimensions, but got ",
                      x.ndim(), "-D; use transpose(dim0, dim1) or permute");
  return x.ndim() < 2 ? x : transpose(x, 0, 1);
}

Tensor reverse_dims(const Tensor& x) {
  Shape sizes(x.sizes().rbegin(), x.sizes().rend());
  Shape strides(x.strides().rbegin(), x.strides().rend());
  return x.as_strided(std::move(sizes), std::move(strides), x.storage_offset());
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  if (x.ndim() == 0) return reshape(x, {1});
  int64_t s = wrap_dim(start_dim, x.ndim(), "flatten"), e = wrap_dim(end_dim, x.ndim(), "flatten");
  GENESIS_CHECK_SHAPE(s <= e, "flatten", "start_dim (", start_dim, ") cannot come after end_dim (",
                      end_dim, ")");
  Shape sizes(x.sizes().begin(), x.sizes().begin() + s);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= x.sizes()[d];
  sizes.push_back(merged);
  sizes.insert(sizes.end(), x.sizes().begin() + e + 1, x.sizes().end());
  return reshape(x, sizes);
}

Tensor squeeze(const Tensor& x) {
  Shape sizes, strides;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (x.sizes()[d] == 1) continue;
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d]);
  }
  return x.as_strided(std::move(sizes), std::move(strides), x.storage_offset());
}

Tensor squeeze(const Tensor& x, const Shape& dims) {
  std::vector<bool> drop(static_cast<size_t>(x.ndim()), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, x.ndim(), "squeeze");
    if (x.ndim() > 0 && x.sizes()[w] == 1) drop[w] = true;  // other sizes stay, as in PyTorch
  }
  Shape sizes, strides;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (drop[d]) continue;
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d]);
  }
  return x.as_strided(std::move(sizes), std::move(strides), x.storage_offset());
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  GENESIS_CHECK_SHAPE(x.ndim() < kMaxDims, "unsqueeze", "a tensor has at most ", kMaxDims,
                      " dimensions");
  int64_t d = wrap_dim(dim, x.ndim() + 1, "unsqueeze");
  Shape sizes = x.sizes(), strides = x.strides();
  int64_t stride = d < x.ndim() ? x.sizes()[d] * x.strides()[d] : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return x.as_strided(std::move(sizes), std::move(strides), x.storage_offset());
}

Tensor expand(const Tensor& x, const Shape& target) {
  GENESIS_CHECK_SHAPE(static_cast<int64_t>(target.size()) >= x.ndim(), "expand",
                      "the number of sizes provided (", target.size(),
                      ") must be greater or equal to the number of dimensions in the tensor (",
                      x.ndim(), ")");
  size_t lead = target.size() - x.sizes().size();
  Shape sizes(target.size()), strides(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t want = target[i];
    if (i < lead) {
      GENESIS_CHECK_SHAPE(want >= 0, "expand", "the expanded size ", want,
                          " is not allowed in a leading, non-existing dimension ", i);
      sizes[i] = want;
      strides[i] = 0;
      continue;
    }
    int64_t have = x.sizes()[i - lead];
    if (want == -1) want = have;
    GENESIS_CHECK_SHAPE(want >= 0, "expand", "invalid size ", want, " in ", shape_str(target));
    GENESIS_CHECK_SHAPE(have == want || have == 1, "expand", "the expanded size of the tensor (",
                        want, ") must match the existing size (", have,
                        ") at non-singleton dimension ", i, "; target sizes ", shape_str(target),
                        ", tensor sizes ", shape_str(x.sizes()));
    sizes[i] = want;
    strides[i] = have == want ? x.strides()[i - lead] : 0;
  }
  checked_numel(sizes, "expand");  // Note [Checked sizes]: the view's count must fit int64
  return x.as_strided(std::move(sizes), std::move(strides), x.storage_offset());
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  GENESIS_CHECK_INDEX(x.ndim() > 0, "narrow", "cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.ndim(), "narrow");
  int64_t size = x.sizes()[d];
  GENESIS_CHECK_INDEX(start >= -size && start <= size, "narrow", "start (", start,
                      ") is out of bounds for dimension ", dim, " of size ", size);
  if (start < 0) start += size;
  // length <= size - start: start + length could wrap.
  GENESIS_CHECK_INDEX(length >= 0 && length <= size - start, "narrow", "start (", start,
                      ") + length (", length, ") exceeds dimension size (", size, ")");
  Shape sizes = x.sizes();
  sizes[d] = length;
  return x.as_strided(std::move(sizes), x.strides(), x.storage_offset() + start * x.strides()[d]);
}

Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step) {
  // A 0-d tensor unfolds into a 1-d one of `size` (0 or 1) items (PyTorch's rule).
  int64_t d = wrap_dim(dim, std::max<int64_t>(x.ndim(), 1), "unfold");
  int64_t length = x.ndim() == 0 ? 1 : x.sizes()[d];
  int64_t stride = x.ndim() == 0 ? 1 : x.strides()[d];
  GENESIS_CHECK_SHAPE(step > 0, "unfold", "step must be positive, but got ", step);
  GENESIS_CHECK(size >= 0 && size <= length, "unfold", "size (", size,
                ") must be between 0 and the size of dim ", d, " (", length, ")");
  if (x.ndim() == 0) return x.as_strided(Shape{size}, Shape{1}, x.storage_offset());
  Shape sizes = x.sizes(), strides = x.strides();
  sizes[d] = (length - size) / step + 1;
  int64_t window_stride = 0;  // a negative stride times the step may not wrap either
  GENESIS_CHECK_SHAPE(!__builtin_mul_overflow(stride, step, &window_stride), "unfold",
                      "the stride ", stride, " times the step ", step, " does not fit 64 bits");
  strides[d] = window_stride;
  sizes.push_back(size);
  strides.push_back(stride);
  return x.as_strided(std::move(sizes), std::move(strides), x.storage_offset());
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  GENESIS_CHECK_INDEX(x.ndim() > 0, "select", "invalid index of a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.ndim(), "select");
  int64_t size = x.sizes()[d];
  GENESIS_CHECK_INDEX(index >= -size && index < size, "select", "index ", index,
                      " is out of bounds for dimension ", d, " with size ", size);
  if (index < 0) index += size;
  Shape sizes = x.sizes(), strides = x.strides();
  int64_t offset = x.storage_offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return x.as_strided(std::move(sizes), std::move(strides), offset);
}

Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step) {
  GENESIS_CHECK_INDEX(x.ndim() > 0, "slice", "cannot slice a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.ndim(), "slice");
  SliceRange r = normalize_slice(start, stop, step, x.sizes()[d]);
  Shape sizes = x.sizes(), strides = x.strides();
  int64_t offset = x.storage_offset() + (r.length > 0 ? r.start * strides[d] : 0);
  sizes[d] = r.length;
  strides[d] *= step;
  return x.as_strided(std::move(sizes), std::move(strides), offset);
}

Tensor movedim(const Tensor& x, const Shape& source, const Shape& destination) {
  const char* op = "movedim";
  GENESIS_CHECK_SHAPE(source.size() == destination.size(), op, "source ", shape_str(source),
                      " and destination ", shape_str(destination),
                      " must have the same number of dims");
  int64_t n = x.ndim();
  std::vector<int64_t> order(static_cast<size_t>(n), -1);  // order[destination] = source
  std::vector<bool> moved(static_cast<size_t>(n), false);
  for (size_t i = 0; i < source.size(); ++i) {
    int64_t s = wrap_dim(source[i], n, op), d = wrap_dim(destination[i], n, op);
    if (n == 0) return x;
    GENESIS_CHECK_SHAPE(!moved[s], op, "repeated dim in source ", shape_str(source));
    GENESIS_CHECK_SHAPE(order[d] < 0, op, "repeated dim in destination ", shape_str(destination));
    moved[s] = true;
    order[d] = s;
  }
  int64_t next = 0;  // the dims that stay fill the free positions in their order
  for (int64_t d = 0; d < n; ++d) {
    if (order[d] >= 0) continue;
    while (moved[next]) ++next;
    order[d] = next++;
  }
  return permute(x, Shape(order.begin(), order.end()));
}

Tensor unflatten(const Tensor& x, int64_t dim, const Shape& sizes) {
  const char* op = "unflatten";
  GENESIS_CHECK_INDEX(x.ndim() > 0, op, "cannot be applied to a 0-dim tensor");
  GENESIS_CHECK_SHAPE(!sizes.empty(), op, "sizes must be non-empty");
  int64_t d = wrap_dim(dim, x.ndim(), op);
  Shape inner = infer_size(sizes, x.sizes()[d], op);
  Shape target(x.sizes().begin(), x.sizes().begin() + d);
  target.insert(target.end(), inner.begin(), inner.end());
  target.insert(target.end(), x.sizes().begin() + d + 1, x.sizes().end());
  GENESIS_CHECK_SHAPE(static_cast<int64_t>(target.size()) <= kMaxDims, op, "a tensor has at most ",
                      kMaxDims, " dimensions, got ", target.size());
  return view(x, target);
}

Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  const char* op = "diagonal";
  GENESIS_CHECK_SHAPE(x.ndim() >= 2, op, "expects a tensor with at least 2 dimensions, got ",
                      x.ndim());
  int64_t a = wrap_dim(dim1, x.ndim(), op), b = wrap_dim(dim2, x.ndim(), op);
  GENESIS_CHECK_SHAPE(a != b, op, "dim1 and dim2 cannot be the same dimension (", dim1, ", ", dim2,
                      ")");
  int64_t rows = x.sizes()[a], cols = x.sizes()[b];
  // Offsets beyond either size give an empty diagonal; comparing first keeps the sums in range.
  int64_t length = 0, start = x.storage_offset();
  if (offset >= 0 && offset < cols) {
    length = std::min(rows, cols - offset);
    start += offset * x.strides()[b];
  } else if (offset < 0 && offset > -rows) {
    length = std::min(rows + offset, cols);
    start += -offset * x.strides()[a];
  }
  if (length <= 0) {
    length = 0;
    start = x.storage_offset();
  }
  Shape sizes, strides;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (d == a || d == b) continue;
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d]);
  }
  sizes.push_back(length);
  strides.push_back(x.strides()[a] + x.strides()[b]);
  return x.as_strided(std::move(sizes), std::move(strides), start);
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, bool xy) {
  const char* op = "meshgrid";
  GENESIS_CHECK_SHAPE(!tensors.empty(), op, "expects a non-empty list of tensors");
  GENESIS_CHECK_SHAPE(static_cast<int64_t>(tensors.size()) <= kMaxDims, op, "a tensor has at most ",
                      kMaxDims, " dimensions");
  Shape shape;
  for (const Tensor& t : tensors) {
    GENESIS_CHECK_SHAPE(t.ndim() <= 1, op, "expects 0-d or 1-d tensors, got a ", t.ndim(),
                        "-d tensor");
    GENESIS_CHECK(t.dtype() == tensors[0].dtype() && t.device() == tensors[0].device(), op,
                  "expects all tensors to have the same dtype and device");
    shape.push_back(t.numel());
  }
  bool swap = xy && tensors.size() >= 2;
  if (swap) std::swap(shape[0], shape[1]);
  checked_numel(shape, op);
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    size_t axis = swap && i < 2 ? 1 - i : i;  // where this tensor's values run
    Shape strides(shape.size(), 0);
    strides[axis] = tensors[i].ndim() == 1 ? tensors[i].strides()[0] : 0;
    out.push_back(tensors[i].as_strided(shape, strides, tensors[i].storage_offset()));
  }
  return out;
}

}  // namespace genesis::ops

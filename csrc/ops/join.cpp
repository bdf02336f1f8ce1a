#include "ops/join.h"

#include "core/errors.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/layout.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

// Empty 1-D tensors were once the only empty ones, so PyTorch lets cat ignore them.
bool skipped(const Tensor& t) { return t.ndim() == 1 && t.sizes()[0] == 0; }

// Checks shared by cat and stack: a non-empty list, one device; returns the promoted dtype.
ScalarType common_dtype(const std::vector<Tensor>& tensors, const char* op) {
  GENESIS_CHECK(!tensors.empty(), op, "expected a non-empty list of tensors");
  std::vector<Operand> operands(tensors.begin(), tensors.end());
  Device device = tensors[0].device();
  for (const Tensor& t : tensors)
    GENESIS_CHECK(t.device() == device, op,
                  "expected all tensors to be on the same device, but found at least two "
                  "devices, ",
                  device.str(), " and ", t.device().str());
  return result_type(operands.data(), static_cast<int>(operands.size()));
}

Tensor cat_impl(const std::vector<Tensor>& tensors, int64_t dim, const char* op) {
  ScalarType dtype = common_dtype(tensors, op);
  for (size_t i = 0; i < tensors.size(); ++i)
    GENESIS_CHECK(tensors[i].ndim() > 0, op, "zero-dimensional tensor (at position ", i,
                  ") cannot be concatenated");

  // The first tensor that is not skipped sets the shape; with none, the result has shape (0,).
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors)
    if (!skipped(t)) {
      first = &t;
      break;
    }
  if (first == nullptr) return Tensor::empty({0}, dtype, tensors[0].device());

  int64_t d = wrap_dim(dim, first->ndim(), op);
  Shape sizes = first->sizes();
  sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped(t)) continue;
    GENESIS_CHECK(t.ndim() == first->ndim(), op,
                  "tensors must have same number of dimensions: got ", first->ndim(), " and ",
                  t.ndim());
    for (int64_t k = 0; k < t.ndim(); ++k)
      GENESIS_CHECK(k == d || t.sizes()[k] == first->sizes()[k], op,
                    "sizes of tensors must match except in dimension ", d, "; expected size ",
                    first->sizes()[k], " but got size ", t.sizes()[k], " for tensor number ", i,
                    " in the list");
    sizes[d] += t.sizes()[d];
  }

  // channels-last when every piece with items is (Note [Layouts that results keep]), as
  // PyTorch's cat
  bool channels_last = true;
  for (const Tensor& t : tensors)
    if (!skipped(t) && t.numel() > 0 && !prefers_channels_last(t)) channels_last = false;
  Tensor out = channels_last ? empty_channels_last(sizes, dtype, first->device())
                             : Tensor::empty(sizes, dtype, first->device());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (skipped(t)) continue;
    int64_t size = t.sizes()[d];
    if (t.numel() > 0) copy_(narrow(out, d, offset, size), t);
    offset += size;
  }
  return out;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  return cat_impl(tensors, dim, "cat");
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  GENESIS_CHECK(!tensors.empty(), "stack", "expected a non-empty list of tensors");
  const Shape& shape = tensors[0].sizes();
  for (size_t i = 1; i < tensors.size(); ++i)
    GENESIS_CHECK(tensors[i].sizes() == shape, "stack",
                  "expects each tensor to be equal size, but got ", shape_str(shape),
                  " at entry 0 and ", shape_str(tensors[i].sizes()), " at entry ", i);
  int64_t d = wrap_dim(dim, tensors[0].ndim() + 1, "stack");
  std::vector<Tensor> expanded;
  expanded.reserve(tensors.size());
  for (const Tensor& t : tensors) expanded.push_back(unsqueeze(t, d));
  return cat_impl(expanded, d, "stack");
}

Tensor atleast_1d(const Tensor& t) { return t.ndim() >= 1 ? t : reshape(t, {1}); }

Tensor atleast_2d(const Tensor& t) {
  if (t.ndim() >= 2) return t;
  return t.ndim() == 0 ? reshape(t, {1, 1}) : unsqueeze(t, 0);
}

Tensor atleast_3d(const Tensor& t) {
  switch (t.ndim()) {
    case 0:
      return reshape(t, {1, 1, 1});
    case 1:
      return unsqueeze(unsqueeze(t, 0), 2);
    case 2:
      return unsqueeze(t, 2);
    default:
      return t;
  }
}

namespace {

std::vector<Tensor> each(const std::vector<Tensor>& tensors, Tensor (*f)(const Tensor&)) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(f(t));
  return out;
}

Tensor as_column(const Tensor& t) { return t.ndim() >= 2 ? t : reshape(t, {t.numel(), 1}); }

}  // namespace

Tensor hstack(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> views = each(tensors, atleast_1d);
  bool all_1d = !views.empty();
  for (const Tensor& t : views) all_1d = all_1d && t.ndim() == 1;
  return cat_impl(views, all_1d ? 0 : 1, "hstack");
}

Tensor vstack(const std::vector<Tensor>& tensors) {
  return cat_impl(each(tensors, atleast_2d), 0, "vstack");
}

Tensor dstack(const std::vector<Tensor>& tensors) {
  return cat_impl(each(tensors, atleast_3d), 2, "dstack");
}

Tensor column_stack(const std::vector<Tensor>& tensors) {
  return cat_impl(each(tensors, as_column), 1, "column_stack");
}

}  // namespace genesis::ops

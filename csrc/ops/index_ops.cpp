#include "ops/index_ops.h"

#include <string>
#include <utility>

#include "core/errors.h"
#include "core/shape.h"
#include "cpu/index.h"
#include "cuda/index.h"
#include "index/index_item.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/index_common.h"
#include "ops/indexing.h"
#include "ops/reduce.h"
#include "ops/views.h"

namespace genesis::ops {

// Note [Index-family ops]
// gather, scatter, index_select, take, masked_* and index_* say which elements they read or
// write; an index key says the same, so each is written as the key it means and run by the
// planner (ops/indexing.h) like x[key] or x[key] = v:
//   index_select(x, d, i)  x[:, ..., i]                     (i at dim d)
//   gather(x, d, i)        x[a0, ..., i, ..., an]           (a_k = arange(i.size(k)) shaped to
//                                                            broadcast along dim k only)
//   scatter_(x, d, i, s)   x[a0, ..., i, ..., an] = s[:i.size(0), ..., :i.size(n)]
//   take(x, i)             x.reshape(-1)[i]
//   masked_fill_(x, m, v)  x[m] = v (a fill over the mask, no wait for the device)
// The aranges are stride-0 broadcasts, so a key costs one small tensor per dim. The planner
// checks the indices (IndexError, on CUDA at the next wait, as for x[i]); errors raised while
// the key runs are renamed after the op. Duplicate indices in a write keep one of the written
// values, as PyTorch documents for scatter_ and index_copy_; the accumulating forms
// (scatter_add, index_add, ...) are Note [Accumulating index ops] in ops/index_reduce.cpp.

namespace detail {

void check_index(const Tensor& input, const Tensor& index, bool int32_too, const char* op) {
  bool ok = index.dtype() == ScalarType::Int64 || (int32_too && index.dtype() == ScalarType::Int32);
  GENESIS_CHECK_TYPE(ok, op, "expected an index of dtype ", int32_too ? "int32 or int64" : "int64",
                     ", but got ", scalar_type_name(index.dtype()));
  GENESIS_CHECK(index.device() == input.device(), op, "expected the index on ",
                input.device().str(), ", but it is on ", index.device().str());
}

void check_same_device(const Tensor& a, const Tensor& b, const char* what, const char* op) {
  GENESIS_CHECK(a.device() == b.device(), op, "expected ", what, " on ", a.device().str(),
                ", but it is on ", b.device().str());
}

Tensor vector_index(const Tensor& input, const Tensor& index, bool int32_too, const char* op) {
  check_index(input, index, int32_too, op);
  GENESIS_CHECK_INDEX(index.ndim() <= 1, op, "index must be a vector (0 or 1 dims), but it has ",
                      index.ndim(), " dims");
  return index.ndim() == 0 ? reshape(index, {1}) : index;
}

IndexList at_dim(int64_t dim, const Tensor& index) {
  IndexList key;
  for (int64_t d = 0; d < dim; ++d) key.push_back(IndexItem::make_slice({}, {}, 1));
  key.push_back(IndexItem::make_tensor(index));
  return key;
}

namespace {
// arange(n) shaped to broadcast along dim d of an ndim-dim key.
Tensor along(int64_t n, int64_t d, int64_t ndim, Device device) {
  Shape shape(static_cast<size_t>(ndim), 1);
  shape[static_cast<size_t>(d)] = n;
  Tensor a = arange(Scalar(int64_t{0}), Scalar(n), Scalar(int64_t{1}), ScalarType::Int64, device);
  return reshape(a, shape);
}
}  // namespace

IndexList gather_key(const Tensor& index, int64_t dim) {
  IndexList key;
  const int64_t n = index.ndim();
  for (int64_t d = 0; d < n; ++d)
    key.push_back(
        IndexItem::make_tensor(d == dim ? index : along(index.sizes()[d], d, n, index.device())));
  return key;
}

// gather's and scatter_'s shape rules: the same number of dims, and index no larger than
// `other` (the input, or the written tensor and the source) in every dim but dim.
void check_gather_shapes(const Tensor& index, const Tensor& other, int64_t dim, bool all_dims,
                         const char* what, const char* op) {
  GENESIS_CHECK(index.ndim() == other.ndim(), op, "index has ", index.ndim(), " dims but ", what,
                " has ", other.ndim(), "; they must have the same number of dims");
  for (int64_t d = 0; d < index.ndim(); ++d) {
    if (d == dim && !all_dims) continue;
    GENESIS_CHECK(index.sizes()[d] <= other.sizes()[d], op, "index has size ", index.sizes()[d],
                  " at dim ", d, ", larger than ", what, "'s ", other.sizes()[d]);
  }
}

// The checks of every in-place writer: writable, and no two elements on one memory location (an
// expanded tensor), as PyTorch and copy_ refuse.
void check_target(const Tensor& self, const char* op) {
  check_writable(self, op);  // Note [Read-only storages]
  GENESIS_CHECK(!self.has_shared_elements(), op,
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location; clone() the tensor first");
}

// A 0-d tensor seen as a 1-d one of one element (gather and scatter_ index "dim 0" of a 0-d
// tensor, as PyTorch allows).
Tensor at_least_1d(const Tensor& t) { return t.ndim() == 0 ? reshape(t, {1}) : t; }

}  // namespace detail

using namespace detail;

Scalar scalar_of(const Tensor& value, const char* op) {
  GENESIS_CHECK(value.ndim() == 0, op, "expects a 0-dim value tensor, but it has ", value.ndim(),
                " dims");
  Tensor host = value.is_cuda() ? copy_to(value, value.dtype(), kCPU) : value;
  if (is_floating_point(host.dtype()))
    return Scalar(*to(host, ScalarType::Float64, kCPU, false).data_as<double>());
  if (host.dtype() == ScalarType::Bool) return Scalar(*host.data_as<bool>());
  return Scalar(*to(host, ScalarType::Int64, kCPU, false).data_as<int64_t>());
}

Tensor index_select(const Tensor& input, int64_t dim, const Tensor& index) {
  const char* op = "index_select";
  Tensor idx = vector_index(input, index, true, op);
  if (input.ndim() == 0) {
    wrap_dim(dim, 1, op);
    GENESIS_CHECK(idx.numel() == 1, op,
                  "an index into a 0-dim tensor can have only 1 value, "
                  "but it has ",
                  idx.numel());
    return renamed(op, [&] {
      return reshape(index_get(reshape(input, {1}), {IndexItem::make_tensor(idx)}), {});
    });
  }
  int64_t d = wrap_dim(dim, input.ndim(), op);
  return renamed(op, [&] { return index_get(input, at_dim(d, idx)); });
}

Tensor gather(const Tensor& input, int64_t dim, const Tensor& index) {
  const char* op = "gather";
  check_index(input, index, false, op);
  Tensor in = at_least_1d(input), idx = at_least_1d(index);
  int64_t d = wrap_dim(dim, in.ndim(), op);
  check_gather_shapes(idx, in, d, false, "input", op);
  // Note [Gathering along a dim] (on the CPU: Note [Scattering along a dim on the CPU]).
  Tensor out = renamed(op, [&] { return gather_along_dim(in, d, idx, false); });
  return index.ndim() == 0 ? reshape(out, {}) : out;
}

Tensor take_along_dim(const Tensor& input, const Tensor& indices, std::optional<int64_t> dim) {
  const char* op = "take_along_dim";
  check_index(input, indices, false, op);
  if (!dim) return renamed(op, [&] { return take(reshape(input, {-1}), reshape(indices, {-1})); });
  GENESIS_CHECK(input.ndim() == indices.ndim(), op,
                "input and indices should have the same number of dims, but got ", input.ndim(),
                " and ", indices.ndim());
  Tensor in = at_least_1d(input), idx = at_least_1d(indices);
  int64_t d = wrap_dim(*dim, in.ndim(), op);
  // Broadcast every dim but d.
  Shape in_shape = in.sizes(), idx_shape = idx.sizes();
  in_shape[d] = 1, idx_shape[d] = 1;
  Shape common = broadcast_shapes(in_shape, idx_shape, op);
  Shape in_to = common, idx_to = common;
  in_to[d] = in.sizes()[d], idx_to[d] = idx.sizes()[d];
  Tensor out = renamed(op, [&] { return gather(expand(in, in_to), d, expand(idx, idx_to)); });
  return input.ndim() == 0 ? reshape(out, {}) : out;
}

Tensor take(const Tensor& input, const Tensor& index) {
  const char* op = "take";
  check_index(input, index, false, op);
  return renamed(op,
                 [&] { return index_get(reshape(input, {-1}), {IndexItem::make_tensor(index)}); });
}

Tensor masked_select(const Tensor& input, const Tensor& mask) {
  const char* op = "masked_select";
  GENESIS_CHECK_TYPE(mask.dtype() == ScalarType::Bool, op, "expected a bool mask, but got ",
                     scalar_type_name(mask.dtype()));
  check_same_device(input, mask, "the mask", op);
  Shape shape = broadcast_shapes(input.sizes(), mask.sizes(), op);
  return renamed(op, [&] {
    return index_get(expand(input, shape), {IndexItem::make_tensor(expand(mask, shape))});
  });
}

namespace {

// The mask of an in-place masked op, broadcast to self's shape.
Tensor self_mask(const Tensor& self, const Tensor& mask, const char* op) {
  GENESIS_CHECK_TYPE(mask.dtype() == ScalarType::Bool, op, "expected a bool mask, but got ",
                     scalar_type_name(mask.dtype()));
  check_same_device(self, mask, "the mask", op);
  Shape shape = broadcast_shapes(self.sizes(), mask.sizes(), op);
  GENESIS_CHECK(shape == self.sizes(), op, "the mask of shape ", shape_str(mask.sizes()),
                " does not broadcast to the tensor's shape ", shape_str(self.sizes()));
  return expand(mask, shape);
}

}  // namespace

void masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const char* op = "masked_fill_";
  check_target(self, op);
  Tensor m = self_mask(self, mask, op);
  // One fill over the masked positions; no wait for the device.
  renamed(op, [&] { index_fill(self, {IndexItem::make_tensor(m)}, value); });
}

// Note [masked_fill out of place]: the result is one where() pass, which reads the tensor and
// the mask and writes the result once (9 bytes per float32 item), instead of a clone and a fill
// in place (17). It is taken where where() gives the same result: a contiguous tensor (a
// clone keeps other layouts) whose dtype the value does not promote. On CUDA it pays only with
// where()'s vector loads (Note [Vector where]): item by item, it measured no faster than the
// clone and fill (2^28 float32 on an H100: 1.62 against 1.52 ms).
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const char* op = "masked_fill";
  Tensor m = self_mask(self, mask, op);
  const Operand operands[2] = {Operand(value), Operand(self)};
  if (self.is_contiguous() && result_type(operands, 2) == self.dtype()) {
    value.check_fits(self.dtype(), op);
    return where(m, value, self);
  }
  Tensor out = clone(self);
  masked_fill_(out, mask, value);
  return out;
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const char* op = "masked_fill";
  GENESIS_CHECK(value.ndim() == 0, op, "only supports a 0-dim value tensor, but got one with ",
                value.ndim(), " dims");
  return masked_fill(self, mask, scalar_of(value, op));
}

void masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const char* op = "masked_fill_";
  GENESIS_CHECK(value.ndim() == 0, op, "only supports a 0-dim value tensor, but got one with ",
                value.ndim(), " dims");
  // The value is read on the host (one wait on CUDA), so it is checked to fit like a number.
  masked_fill_(self, mask, scalar_of(value, op));
}

void masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const char* op = "masked_scatter_";
  check_target(self, op);
  Tensor m = self_mask(self, mask, op);
  GENESIS_CHECK_TYPE(source.dtype() == self.dtype(), op, "expected source of dtype ",
                     scalar_type_name(self.dtype()), ", but got ",
                     scalar_type_name(source.dtype()));
  check_same_device(self, source, "source", op);
  // The count sizes the source's prefix, so it is read on the host (one wait on CUDA).
  Tensor count_t = sum(m, std::nullopt, false, ScalarType::Int64);
  int64_t count = *copy_to(count_t, ScalarType::Int64, kCPU).data_as<int64_t>();
  GENESIS_CHECK(source.numel() >= count, op, "the mask selects ", count,
                " elements, but source has only ", source.numel());
  Tensor values = narrow(reshape(source, {-1}), 0, 0, count);
  renamed(op, [&] { index_put(self, {IndexItem::make_tensor(m)}, values); });
}

void index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& v) {
  const char* op = "index_fill_";
  check_target(self, op);
  Tensor idx = vector_index(self, index, false, op);
  Tensor target = at_least_1d(self);
  int64_t d = wrap_dim(dim, target.ndim(), op);
  renamed(op, [&] { index_fill(target, at_dim(d, idx), v); });
}

void index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const char* op = "index_copy_";
  check_target(self, op);
  Tensor idx = vector_index(self, index, false, op);
  GENESIS_CHECK_TYPE(source.dtype() == self.dtype(), op, "expected source of dtype ",
                     scalar_type_name(self.dtype()), ", but got ",
                     scalar_type_name(source.dtype()));
  check_same_device(self, source, "source", op);
  Tensor target = at_least_1d(self), src = at_least_1d(source);
  int64_t d = wrap_dim(dim, target.ndim(), op);
  Shape want = target.sizes();
  want[d] = idx.numel();
  GENESIS_CHECK(src.sizes() == want, op, "source has shape ", shape_str(source.sizes()),
                ", but the indexed shape is ", shape_str(want));
  renamed(op, [&] { index_put(target, at_dim(d, idx), src); });
}

void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const char* op = "scatter_";
  check_target(self, op);
  check_index(self, index, false, op);
  GENESIS_CHECK_TYPE(src.dtype() == self.dtype(), op, "expected src of dtype ",
                     scalar_type_name(self.dtype()), ", but got ", scalar_type_name(src.dtype()));
  check_same_device(self, src, "src", op);
  Tensor target = at_least_1d(self), idx = at_least_1d(index), source = at_least_1d(src);
  int64_t d = wrap_dim(dim, target.ndim(), op);
  check_gather_shapes(idx, target, d, false, "self", op);
  check_gather_shapes(idx, source, d, true, "src", op);
  // The source's leading block of index's shape (PyTorch reads src only there).
  Tensor values = source;
  for (int64_t k = 0; k < idx.ndim(); ++k) values = narrow(values, k, 0, idx.sizes()[k]);
  // Note [Gathering along a dim], the other way (Note [Scattering along a dim on the CPU]).
  renamed(op, [&] { scatter_along_dim(target, d, idx, values); });
}

void scatter_value_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const char* op = "scatter_";
  check_target(self, op);
  check_index(self, index, false, op);
  Tensor target = at_least_1d(self), idx = at_least_1d(index);
  int64_t d = wrap_dim(dim, target.ndim(), op);
  check_gather_shapes(idx, target, d, false, "self", op);
  renamed(op, [&] { index_fill(target, gather_key(idx, d), value); });
}

std::vector<Tensor> nonzero(const Tensor& input) {
  Tensor flat = input.ndim() == 0 ? reshape(input, {1}) : input;
  Tensor mask = flat.dtype() == ScalarType::Bool
                    ? flat
                    : binary(BinaryOp::Ne, flat, Scalar(int64_t{0}), "nonzero");
  return mask.is_cuda() ? cuda::nonzero(contiguous(mask)) : cpu::nonzero(mask);
}

}  // namespace genesis::ops

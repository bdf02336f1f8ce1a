// Runs index plans along the path the planner chose (Note [Index paths] in index/plan.h): VIEW
// through views, copies and fills; the advanced paths through the device's index loops
// (cpu/index.h, cuda/index.h).
#include "ops/indexing.h"

#include <algorithm>
#include <cstdint>

#include "core/errors.h"
#include "core/index_check.h"
#include "cpu/index.h"
#include "cuda/index.h"
#include "cuda/index_errors.h"
#include "index/index_memo.h"
#include "index/plan.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

// The advanced part of a plan made concrete: one integer index tensor per indexed dim of the
// view (masks expanded by nonzero), all broadcast to `shape`.
struct ResolvedIndices {
  std::vector<int64_t> dims;    // dims of the view they index
  std::vector<Tensor> indices;  // on their own devices
  Shape shape;                  // the broadcast index shape
  bool iterated = false;        // whether the index tensors alone broadcast to any element
};

// Note [Indexing a dim of size 0]
// Every index into a dim of size 0 is out of range, and a kernel cannot even clamp it to a
// valid element (there is none): the device kernels would read outside the source. So the host
// raises before any kernel runs, naming the first index value (read from the device once: this
// is the error path).
[[noreturn]] void fail_on_empty_dim(const Tensor& index, int64_t dim) {
  Tensor first = narrow(reshape(index, {-1}), 0, 0, 1);
  int64_t v = *copy_to(first, ScalarType::Int64, kCPU).data_as<int64_t>();
  GENESIS_FAIL(ErrorKind::Index, "index", "index ", v, " is out of bounds for dimension ", dim,
               " with size 0");
}

ResolvedIndices resolve(const IndexPlan& p) {
  ResolvedIndices r;
  std::vector<Shape> shapes;
  for (const AdvancedIndex& a : p.advanced) {
    switch (a.kind) {
      case AdvancedIndex::Kind::Integer: {
        r.dims.push_back(a.view_dim);
        r.indices.push_back(to(a.tensor, ScalarType::Int64, a.tensor.device(), false));
        shapes.push_back(a.tensor.sizes());
        break;
      }
      case AdvancedIndex::Kind::Mask: {
        // Masks are expanded where they live: a host mask needs no device round trip.
        Tensor mask = to(a.tensor, ScalarType::Bool, a.tensor.device(), false);
        std::vector<Tensor> coords;
        int64_t count;
        if (mask.ndim() == 0) {
          // A 0-d mask indexes nothing but adds a dim of its count (1 or 0), like a Python bool.
          count = to(mask, ScalarType::Int64, kCPU, false).data_as<int64_t>()[0];
        } else {
          coords = mask.is_cuda() ? cuda::nonzero(contiguous(mask)) : cpu::nonzero(mask);
          count = coords[0].numel();
        }
        for (size_t j = 0; j < coords.size(); ++j) {
          r.dims.push_back(a.view_dim + static_cast<int64_t>(j));
          r.indices.push_back(coords[j]);
        }
        shapes.push_back(Shape{count});
        break;
      }
      case AdvancedIndex::Kind::Boolean:
        shapes.push_back(Shape{a.boolean ? 1 : 0});
        break;
    }
  }
  r.shape = Shape{};
  for (const Shape& s : shapes) {
    try {
      r.shape = broadcast_shapes(r.shape, s, "index");
    } catch (const Error&) {
      std::string all;
      for (const Shape& t : shapes) all += shape_str(t) + " ";
      GENESIS_FAIL(ErrorKind::Index, "index",
                   "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                   all);
    }
  }
  // Broadcasting a False or an empty 0-d mask in is fine (checked above), but NumPy checks
  // index values only when the index tensors themselves broadcast to some elements.
  Shape tensors_only{};
  for (const Tensor& t : r.indices)
    tensors_only = broadcast_shapes(tensors_only, t.sizes(), "index");
  r.iterated = !r.indices.empty() && numel_of(tensors_only) > 0;
  if (numel_of(r.shape) > 0)  // Note [Indexing a dim of size 0]
    for (size_t k = 0; k < r.indices.size(); ++k)
      if (p.view.sizes()[r.dims[k]] == 0) fail_on_empty_dim(r.indices[k], r.dims[k]);
  return r;
}

// Shapes and strides of the result: the view's other dims with the index shape at insert_at.
struct Layout {
  Shape result;        // result sizes
  Shape view_strides;  // the view's strides per result dim (0 on index dims)
  std::vector<bool> index_dim;
};

Layout layout(const IndexPlan& p, const ResolvedIndices& r) {
  Layout l;
  std::vector<bool> indexed(static_cast<size_t>(p.view.ndim()), false);
  for (int64_t d : r.dims) indexed[d] = true;
  Shape kept_sizes, kept_strides;
  for (int64_t d = 0; d < p.view.ndim(); ++d) {
    if (indexed[d]) continue;
    kept_sizes.push_back(p.view.sizes()[d]);
    kept_strides.push_back(p.view.strides()[d]);
  }
  int64_t at = std::min<int64_t>(p.insert_at, static_cast<int64_t>(kept_sizes.size()));
  for (int64_t i = 0; i < static_cast<int64_t>(kept_sizes.size()) + 1; ++i) {
    if (i == at) {
      for (int64_t s : r.shape) {
        l.result.push_back(s);
        l.view_strides.push_back(0);
        l.index_dim.push_back(true);
      }
    }
    if (i < static_cast<int64_t>(kept_sizes.size())) {
      l.result.push_back(kept_sizes[i]);
      l.view_strides.push_back(kept_strides[i]);
      l.index_dim.push_back(false);
    }
  }
  return l;
}

// Byte offsets (int64, shape r.shape) of the indexed elements relative to the view's data, on
// the view's device. When every index lives on the host (lists, NumPy arrays, CPU tensors) they
// are computed and bounds-checked there and moved once, so a CUDA getitem need not wait for
// the device. Otherwise they are computed on the device (their checks recorded with `seq`, 0 for
// fresh ones), and `checked` tells whether the bounds check still has to run.
Tensor byte_offsets(const IndexPlan& p, const ResolvedIndices& r, bool* checked, unsigned seq = 0) {
  Device device = p.view.device();
  bool on_host =
      std::none_of(r.indices.begin(), r.indices.end(), [](const Tensor& t) { return t.is_cuda(); });
  Device where = on_host ? kCPU : device;
  Tensor offsets = Tensor::empty(r.shape, ScalarType::Int64, where);
  if (on_host || r.indices.empty()) fill_(offsets, Scalar(int64_t{0}));
  int64_t item = static_cast<int64_t>(p.view.itemsize());
  for (size_t k = 0; k < r.indices.size(); ++k) {
    Tensor idx = expand(to(r.indices[k], ScalarType::Int64, where, false), r.shape);
    int64_t d = r.dims[k];
    int64_t size = p.view.sizes()[d], stride = p.view.strides()[d] * item;
    if (on_host)
      cpu::add_index_offsets(offsets, idx, size, stride, d);
    else
      cuda::add_index_offsets(offsets, idx, size, stride, d, /*assign=*/k == 0, seq);
  }
  if (offsets.numel() == 0) {
    // Nothing to index, but NumPy still rejects out-of-range values of the index tensors when
    // they alone broadcast to elements (a False or an empty 0-d mask emptied the result), and
    // of 0-d index tensors always (NumPy checks those like integers).
    for (size_t k = 0; k < r.indices.size(); ++k) {
      if (r.indices[k].numel() == 0 || !(r.iterated || r.indices[k].ndim() == 0)) continue;
      Tensor idx = to(r.indices[k], ScalarType::Int64, where, false);
      Tensor scratch = Tensor::empty(idx.sizes(), ScalarType::Int64, where);
      int64_t d = r.dims[k];
      if (on_host) {
        fill_(scratch, Scalar(int64_t{0}));
        cpu::add_index_offsets(scratch, idx, p.view.sizes()[d], 0, d);
      } else {
        cuda::add_index_offsets(scratch, idx, p.view.sizes()[d], 0, d, true);
        cuda::check_index_offsets(scratch);
      }
    }
  }
  *checked = on_host;
  return on_host ? to(offsets, ScalarType::Int64, device, false) : offsets;
}

// The offsets seen with the result's shape: their dims where the index dims are, 0 elsewhere.
Tensor offsets_in_result(const Tensor& offsets, const Layout& l) {
  Shape strides(l.result.size(), 0);
  size_t k = 0;
  for (size_t i = 0; i < l.result.size(); ++i)
    if (l.index_dim[i]) strides[i] = offsets.strides()[k++];
  return offsets.as_strided(l.result, strides, offsets.storage_offset());
}

Tensor view_in_result(const IndexPlan& p, const Layout& l) {
  return p.view.as_strided(l.result, l.view_strides, p.view.storage_offset());
}

// Runs `launch(check)`, the kernels of a gather or scatter through one int64 index tensor on the
// GPU for a dim of `size`, then checks their bounds (waiting under the immediate index check,
// Note [Deferred index errors]), unless the index is known in range (Note [Validated index
// memo]); `check` tells whether a check is wanted.
template <typename Launch>
void launch_index_checked(const Tensor& index, int64_t size, const Launch& launch) {
  uint64_t version = index.storage().write_version();
  uint64_t epoch = index_error_epoch();
  bool known =
      index_known_in_range(index, size) && !cuda::index_error_pending(index.device().index);
  launch(/*check=*/!known);
  if (known) return;
  // Waits under the immediate check; under the deferred one the memo is provisional until the
  // next wait (Note [Validated index memo]).
  bool waited = cuda::check_index_offsets(index);
  if (waited || index_check_mode() == IndexCheckMode::Deferred)
    remember_index_in_range(index, size, version, epoch);
}

// out(i) = src(i) at index_view(i) along dim `dim` of `size` elements, `byte_stride` apart,
// through one int64 index tensor on out's GPU (index_view: `index` seen with out's shape). The
// gather kernel records out-of-range indices whether or not a check follows.
void gather_one_index(const Tensor& out, const Tensor& src, const Tensor& index_view,
                      const Tensor& index, int64_t size, int64_t byte_stride, int64_t dim) {
  launch_index_checked(
      index, size, [&](bool) { cuda::gather_index(out, src, index_view, size, byte_stride, dim); });
}

// Whether x's elements after dim 0 are dense in row-major order (each row one block of memory).
bool rows_are_dense(const Tensor& x) {
  int64_t expected = 1;
  for (int64_t d = x.ndim() - 1; d >= 1; --d) {
    if (x.sizes()[d] != 1 && x.strides()[d] != expected) return false;
    expected *= x.sizes()[d];
  }
  return true;
}

// FIRST_DIM: x[index] gathered along dim 0 without a plan object; the result is
// index.shape + x.shape[1:], as the OFFSETS path would make it.
Tensor gather_first_dim(const Tensor& x, const Tensor& index) {
  if (x.sizes()[0] == 0 && index.numel() > 0) fail_on_empty_dim(index, 0);
  Shape sizes = index.sizes(), src_strides(index.ndim(), 0), index_strides = index.strides();
  for (int64_t d = 1; d < x.ndim(); ++d) {
    sizes.push_back(x.sizes()[d]);
    src_strides.push_back(x.strides()[d]);
    index_strides.push_back(0);
  }
  Tensor out = Tensor::empty(sizes, x.dtype(), x.device());
  if (rows_are_dense(x)) {  // Note [Row gathers] in kernels/index.cu
    Tensor idx = contiguous(index);
    launch_index_checked(index, x.sizes()[0],
                         [&](bool) { cuda::gather_rows(out, x, idx, x.sizes()[0]); });
    return out;
  }
  Tensor src = x.as_strided(sizes, std::move(src_strides), x.storage_offset());
  Tensor index_view =
      index.as_strided(std::move(sizes), std::move(index_strides), index.storage_offset());
  gather_one_index(out, src, index_view, index, x.sizes()[0],
                   x.strides()[0] * static_cast<int64_t>(x.itemsize()), 0);
  return out;
}

Tensor gather(const IndexPlan& p) {
  if (p.path == IndexPath::FIRST_DIM) return gather_first_dim(p.view, p.advanced[0].tensor);
  if (p.path == IndexPath::MASK_COMPACT) {
    Tensor mask = contiguous(to(p.advanced[0].tensor, ScalarType::Bool, p.view.device(), false));
    return cuda::masked_select(contiguous(p.view), mask);
  }
  ResolvedIndices r = resolve(p);
  Layout l = layout(p, r);
  Tensor out = Tensor::empty(l.result, p.view.dtype(), p.view.device());
  if (p.path == IndexPath::ONE_INDEX) {
    int64_t d = r.dims[0];
    gather_one_index(out, view_in_result(p, l), offsets_in_result(r.indices[0], l), r.indices[0],
                     p.view.sizes()[d],
                     p.view.strides()[d] * static_cast<int64_t>(p.view.itemsize()), d);
    return out;
  }
  // The indices are checked even when nothing is gathered: x[..., 0] of a zero-size last dim
  // is an IndexError in NumPy too.
  bool checked = false;
  Tensor offsets = byte_offsets(p, r, &checked);
  if (out.numel() == 0) {
    if (!checked) cuda::check_index_offsets(offsets);
    return out;
  }
  Tensor src = view_in_result(p, l), off = offsets_in_result(offsets, l);
  if (out.is_cuda())
    cuda::gather(out, src, off);
  else
    cpu::gather(out, src, off);
  // Out-of-range indices poisoned their offsets, read as 0 (Note [Poisoned offsets] in
  // kernels/index_loops.cuh), so the gather stayed in bounds; the check raises now, or at the
  // next wait (Note [Deferred index errors]).
  if (!checked) cuda::check_index_offsets(offsets);
  return out;
}

// Strips leading size-1 dims a value may carry beyond the target's rank (NumPy allows them).
Tensor fit_value(const Tensor& value, const Shape& target) {
  Tensor v = value;
  while (v.ndim() > static_cast<int64_t>(target.size()) && v.sizes()[0] == 1)
    v = v.as_strided(Shape(v.sizes().begin() + 1, v.sizes().end()),
                     Shape(v.strides().begin() + 1, v.strides().end()), v.storage_offset());
  return v;
}

// The values of a scatter in the destination's dtype, dense and in row-major order of the
// result (as given when they already are and do not overlap the destination).
Tensor dense_values(const IndexPlan& p, const Layout& l, const Tensor& v) {
  if (v.sizes() == l.result && v.dtype() == p.view.dtype() && v.device() == p.view.device() &&
      v.is_contiguous() && !v.storage().is_same(p.view.storage()))  // no aliasing writes
    return v;
  Tensor dense = Tensor::empty(l.result, p.view.dtype(), p.view.device());
  copy_(dense, v);
  return dense;
}

// The largest result dim taken from the view as it is (no index tensor on it, a nonzero
// stride), along which no two items of a scatter share a destination when no two elements of
// the view share memory: the CPU threads may take slices of it (Note [Scattering along a dim on
// the CPU] in cpu/index.cpp); -1 when there is none.
int64_t split_dim(const IndexPlan& p, const Layout& l) {
  int64_t best = -1;
  for (int64_t d = 0; d < static_cast<int64_t>(l.result.size()); ++d)
    if (!l.index_dim[d] && l.view_strides[d] != 0 && l.result[d] > 1 &&
        (best < 0 || l.result[d] > l.result[best]))
      best = d;
  return best >= 0 && !p.view.has_shared_elements() ? best : -1;
}

// With an accumulating `reduce`, every value combines into its element (Note [Accumulating
// scatters] in vocab/scatter_reduce.h) along the same paths and checks.
void scatter(const IndexPlan& p, const Tensor& value, ScatterReduce reduce = ScatterReduce::None) {
  ResolvedIndices r = resolve(p);
  Layout l = layout(p, r);
  Tensor v = fit_value(value, l.result);
  bool fits = v.ndim() <= static_cast<int64_t>(l.result.size());
  for (int64_t i = 1; fits && i <= v.ndim(); ++i) {
    int64_t have = v.sizes()[v.ndim() - i], want = l.result[l.result.size() - i];
    fits = have == want || have == 1;
  }
  GENESIS_CHECK_VALUE(fits, "setitem", "shape mismatch: value array of shape ",
                      shape_str(value.sizes()),
                      " could not be broadcast to indexing result of shape ", shape_str(l.result));
  // The destination must not change when an index is out of range.
  if (p.path == IndexPath::ONE_INDEX) {
    // Checked and scattered without an offsets tensor or a wait in between: the scatter kernel
    // writes nothing once the check has recorded an error (Note [Fused scatter]).
    const Tensor& index = r.indices[0];
    if (index.numel() == 0) return;  // nothing to check or write
    Tensor dense = dense_values(p, l, v);
    int64_t d = r.dims[0], size = p.view.sizes()[d];
    launch_index_checked(index, size, [&](bool check) {
      cuda::scatter_index(view_in_result(p, l), dense, offsets_in_result(index, l), index, size,
                          p.view.strides()[d] * static_cast<int64_t>(p.view.itemsize()), d, check,
                          reduce);
    });
    return;
  }
  bool checked = false;
  // The offsets' checks and the scatter share a sequence number: the scatter writes nothing
  // when one of them recorded the device's error (Note [Deferred index errors]).
  unsigned seq = p.view.is_cuda() ? cuda::next_index_seq() : 0;
  Tensor offsets = byte_offsets(p, r, &checked, seq);
  // Raises before scattering under the immediate check; a deferred one lets the scatter run,
  // which skips the poisoned offsets of out-of-range indices (Note [Poisoned offsets]).
  if (!checked) cuda::check_index_offsets(offsets);
  if (numel_of(l.result) == 0) return;
  Tensor dense = dense_values(p, l, v);
  Tensor dst = view_in_result(p, l), off = offsets_in_result(offsets, l);
  if (dst.is_cuda())
    cuda::scatter(dst, off, dense, reduce, seq);
  else
    cpu::scatter(dst, off, dense, reduce, split_dim(p, l));
}

// MASKED_FILL: x[mask] = scalar with one mask and nothing else advanced, a masked fill over the
// view, which needs no nonzero and so never waits for the device.
void masked_fill(const IndexPlan& p, const Scalar& value) {
  const AdvancedIndex& a = p.advanced[0];
  if (a.tensor.numel() == 0) return;  // an empty mask selects nothing
  Tensor mask = to(a.tensor, ScalarType::Bool, p.view.device(), false);
  Shape strides(p.view.ndim(), 0);
  for (int64_t j = 0; j < mask.ndim(); ++j) strides[a.view_dim + j] = mask.strides()[j];
  Tensor m = mask.as_strided(p.view.sizes(), strides, mask.storage_offset());
  uint64_t pattern = value.bit_pattern(p.view.dtype());
  if (p.view.is_cuda())
    cuda::masked_fill(p.view, m, pattern);
  else
    cpu::masked_fill(p.view, m, pattern);
}

// The elementwise op of an accumulating mode, for a COPY plan (no index tensor: each element is
// written once).
BinaryOp combine_op(ScatterReduce reduce) {
  switch (reduce) {
    case ScatterReduce::Prod:
      return BinaryOp::Mul;
    case ScatterReduce::Max:
      return BinaryOp::Maximum;
    case ScatterReduce::Min:
      return BinaryOp::Minimum;
    default:
      return BinaryOp::Add;
  }
}

}  // namespace

// Note [Gathering along a dim]
// torch.gather written as an index key needs one index tensor per dim (the others aranges), so
// the OFFSETS path would write and read an int64 offset per element for each of them. Instead the
// source is seen with the index's shape and a 0 stride at `dim`, and the one-index kernel adds
// index * stride(dim) to each element's offset: one pass that reads the index once.
Tensor gather_along_dim(const Tensor& x, int64_t dim, const Tensor& index, bool known_in_range) {
  Tensor out = Tensor::empty(index.sizes(), x.dtype(), x.device());
  if (out.numel() == 0) return out;
  if (x.sizes()[dim] == 0) fail_on_empty_dim(index, dim);
  if (!x.is_cuda()) {  // one checked pass too (Note [Scattering along a dim on the CPU])
    Shape strides = x.strides();
    strides[dim] = 0;
    cpu::gather_along_dim(out, x.as_strided(index.sizes(), std::move(strides), x.storage_offset()),
                          index, dim, x.sizes()[dim],
                          x.strides()[dim] * static_cast<int64_t>(x.itemsize()), !known_in_range);
    return out;
  }
  bool same_rows = true;  // index row r is x's row r
  for (int64_t d = 0; d < dim; ++d) same_rows = same_rows && index.sizes()[d] == x.sizes()[d];
  if (!known_in_range && same_rows && dim == x.ndim() - 1 && x.is_contiguous() &&
      index.is_contiguous() && index.sizes()[dim] % 4 == 0 &&
      reinterpret_cast<uintptr_t>(index.data()) % 16 == 0 &&
      reinterpret_cast<uintptr_t>(out.data()) % 32 == 0) {  // the vector kernel's conditions
    launch_index_checked(index, x.sizes()[dim], [&](bool) { cuda::gather_last(out, x, index); });
    return out;
  }
  Shape strides = x.strides();
  strides[dim] = 0;
  Tensor src = x.as_strided(index.sizes(), std::move(strides), x.storage_offset());
  int64_t size = x.sizes()[dim],
          byte_stride = x.strides()[dim] * static_cast<int64_t>(x.itemsize());
  if (known_in_range)
    cuda::gather_index(out, src, index, size, byte_stride, dim);
  else
    gather_one_index(out, src, index, index, size, byte_stride, dim);
  return out;
}

void scatter_along_dim(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& values,
                       ScatterReduce reduce) {
  if (index.numel() == 0) return;
  if (x.sizes()[dim] == 0) fail_on_empty_dim(index, dim);
  Shape strides = x.strides();
  strides[dim] = 0;
  Tensor dst = x.as_strided(index.sizes(), std::move(strides), x.storage_offset());
  Tensor v = values;
  if (v.sizes() != index.sizes() || v.dtype() != x.dtype() || !v.is_contiguous() ||
      v.storage().is_same(x.storage())) {  // dense, in x's dtype, and not aliasing x
    v = Tensor::empty(index.sizes(), x.dtype(), x.device());
    copy_(v, values);
  }
  int64_t size = x.sizes()[dim],
          byte_stride = x.strides()[dim] * static_cast<int64_t>(x.itemsize());
  if (!x.is_cuda()) {  // Note [Scattering along a dim on the CPU]: checked before any write
    if (!index_known_in_range(index, size)) {
      uint64_t version = index.storage().write_version(), epoch = index_error_epoch();
      cpu::check_index_range(index, size, dim);
      remember_index_in_range(index, size, version, epoch);
    }
    cpu::scatter_along_dim(dst, v, index, dim, size, byte_stride, reduce);
    return;
  }
  launch_index_checked(index, size, [&](bool check) {
    cuda::scatter_index(dst, v, index, index, size, byte_stride, dim, check, reduce);
  });
}

Tensor index_get(const Tensor& x, const IndexList& key) {
  if (is_first_dim_index(x, key)) return gather_first_dim(x, key[0].tensor);
  IndexPlan p = plan_getitem(x, key);
  return p.kind == IndexPlanKind::VIEW ? p.view : gather(p);
}

void index_put(const Tensor& x, const IndexList& key, const Tensor& value, ScatterReduce reduce) {
  check_writable(x, "setitem");  // Note [Read-only storages]
  IndexPlan p = plan_setitem(x, key, value);
  if (p.kind == IndexPlanKind::SCATTER) return scatter(p, value, reduce);
  Tensor v = fit_value(value, p.view.sizes());
  if (reduce != ScatterReduce::None) v = binary(combine_op(reduce), p.view, v, "setitem");
  copy_(p.view, v);
}

void index_fill(const Tensor& x, const IndexList& key, const Scalar& value) {
  check_writable(x, "setitem");  // Note [Read-only storages]
  IndexPlan p = plan_setitem(x, key, Tensor());
  value.check_fits(x.dtype(), "setitem");
  if (p.path == IndexPath::VIEW) return fill_(p.view, value, "setitem");
  if (p.path == IndexPath::MASKED_FILL) return masked_fill(p, value);
  Tensor one = Tensor::empty({}, x.dtype(), x.device());
  fill_(one, value, "setitem");
  scatter(p, one);
}

}  // namespace genesis::ops

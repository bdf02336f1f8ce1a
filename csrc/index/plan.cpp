#include "index/plan.h"

#include "core/errors.h"
#include "index/slice.h"

namespace genesis {

const char* index_plan_kind_name(IndexPlanKind kind) {
  switch (kind) {
    case IndexPlanKind::VIEW:
      return "VIEW";
    case IndexPlanKind::GATHER:
      return "GATHER";
    case IndexPlanKind::SCATTER:
      return "SCATTER";
    case IndexPlanKind::COPY:
      return "COPY";
    case IndexPlanKind::FILL:
      return "FILL";
  }
  return "?";
}

const char* index_path_name(IndexPath path) {
  switch (path) {
    case IndexPath::VIEW:
      return "VIEW";
    case IndexPath::OFFSETS:
      return "OFFSETS";
    case IndexPath::ONE_INDEX:
      return "ONE_INDEX";
    case IndexPath::FIRST_DIM:
      return "FIRST_DIM";
    case IndexPath::MASK_COMPACT:
      return "MASK_COMPACT";
    case IndexPath::MASKED_FILL:
      return "MASKED_FILL";
  }
  return "?";
}

namespace {

using Kind = IndexItem::Kind;

bool is_mask(const IndexItem& it) {
  return it.kind == Kind::Tensor && it.tensor.dtype() == ScalarType::Bool;
}

// Dims of x an item consumes.
int64_t consumed_dims(const IndexItem& it) {
  switch (it.kind) {
    case Kind::Integer:
    case Kind::Slice:
      return 1;
    case Kind::Tensor:
      return is_mask(it) ? it.tensor.ndim() : 1;
    default:
      return 0;
  }
}

// Walks the key once: basic items shape the view, advanced items are recorded.
// Without index tensors, Python bools are the only advanced items and need no kernel: they
// become one new dim of size 1 (all True) or 0 (any False), placed by the same rule.
IndexPlan plan(const Tensor& x, const IndexList& key) {
  bool has_tensor = false;
  int64_t consumed = 0, ellipses = 0, first_adv = -1, last_adv = -1, n_adv = 0;
  for (size_t i = 0; i < key.size(); ++i) {
    const IndexItem& it = key[i];
    has_tensor = has_tensor || it.kind == Kind::Tensor;
    consumed += consumed_dims(it);
    if (it.kind == Kind::Ellipsis) ++ellipses;
    if (it.kind == Kind::Integer || it.kind == Kind::Boolean || it.kind == Kind::Tensor) {
      if (first_adv < 0) first_adv = static_cast<int64_t>(i);
      last_adv = static_cast<int64_t>(i);
      ++n_adv;
    }
  }
  GENESIS_CHECK_INDEX(ellipses <= 1, "index", "an index can only have a single ellipsis ('...')");
  GENESIS_CHECK_INDEX(consumed <= x.ndim(), "index", "too many indices for tensor of dimension ",
                      x.ndim(), " (got ", consumed, ")");
  bool adjacent = last_adv - first_adv + 1 == n_adv;

  IndexPlan p;
  Shape sizes, strides;
  int64_t offset = x.storage_offset();
  int64_t dim = 0;            // next dim of x
  int64_t adv_view_dims = 0;  // view dims kept for index tensors so far
  bool all_true = true, any_bool = false;
  int64_t insert_at = -1;
  for (size_t i = 0; i < key.size(); ++i) {
    const IndexItem& it = key[i];
    if (static_cast<int64_t>(i) == first_adv)
      insert_at = adjacent ? static_cast<int64_t>(sizes.size()) - adv_view_dims : 0;
    switch (it.kind) {
      case Kind::Integer: {
        int64_t size = x.sizes()[dim];
        int64_t v = it.integer;
        GENESIS_CHECK_INDEX(v >= -size && v < size, "index", "index ", v,
                            " is out of bounds for dimension ", dim, " with size ", size);
        offset += (v < 0 ? v + size : v) * x.strides()[dim];
        ++dim;
        break;
      }
      case Kind::Slice: {
        SliceRange r = normalize_slice(it.start, it.stop, it.step, x.sizes()[dim]);
        if (r.length > 0) offset += r.start * x.strides()[dim];
        sizes.push_back(r.length);
        // A step is only taken when two or more elements are selected; then |step| < size and
        // the product is a real distance in memory (checked all the same: no wrapping).
        int64_t stride = x.strides()[dim];
        if (r.length > 1)
          GENESIS_CHECK_INDEX(!__builtin_mul_overflow(stride, it.step, &stride), "index",
                              "slice step ", it.step, " times stride ", x.strides()[dim],
                              " does not fit 64 bits");
        strides.push_back(stride);
        ++dim;
        break;
      }
      case Kind::None:
        sizes.push_back(1);
        strides.push_back(0);
        break;
      case Kind::Ellipsis:
        for (int64_t n = x.ndim() - consumed; n > 0; --n, ++dim) {
          sizes.push_back(x.sizes()[dim]);
          strides.push_back(x.strides()[dim]);
        }
        break;
      case Kind::Boolean:
        any_bool = true;
        all_true = all_true && it.boolean;
        if (has_tensor)
          p.advanced.push_back({AdvancedIndex::Kind::Boolean, Tensor(), 0, it.boolean});
        break;
      case Kind::Tensor: {
        int64_t k = consumed_dims(it);
        if (is_mask(it)) {
          for (int64_t j = 0; j < k; ++j)
            // NumPy lets a mask dim of length 0 stand against a dim of any size (selecting
            // nothing).
            GENESIS_CHECK_INDEX(
                it.tensor.sizes()[j] == x.sizes()[dim + j] || it.tensor.sizes()[j] == 0, "index",
                "the shape of the mask ", shape_str(it.tensor.sizes()), " at index ", i,
                " does not match the shape of the indexed tensor ", shape_str(x.sizes()),
                " at dim ", dim + j);
        }
        p.advanced.push_back(
            {is_mask(it) ? AdvancedIndex::Kind::Mask : AdvancedIndex::Kind::Integer, it.tensor,
             static_cast<int64_t>(sizes.size()), false});
        for (int64_t j = 0; j < k; ++j, ++dim) {
          sizes.push_back(x.sizes()[dim]);
          strides.push_back(x.strides()[dim]);
        }
        adv_view_dims += k;
        break;
      }
    }
  }
  for (; dim < x.ndim(); ++dim) {  // trailing dims the key leaves alone
    sizes.push_back(x.sizes()[dim]);
    strides.push_back(x.strides()[dim]);
  }
  // A view's dims (Note [Checked sizes]); an advanced result is checked when it is allocated.
  int64_t view_dims = static_cast<int64_t>(sizes.size()) + (any_bool && !has_tensor ? 1 : 0);
  GENESIS_CHECK_INDEX(view_dims <= kMaxDims, "index", "the result would have ", view_dims,
                      " dimensions; a tensor has at most ", kMaxDims);
  if (any_bool && !has_tensor) {
    // Python bools alone: one dim of size 1 or 0, a plain view.
    sizes.insert(sizes.begin() + insert_at, all_true ? 1 : 0);
    strides.insert(strides.begin() + insert_at, 0);
  }
  p.view = x.as_strided(std::move(sizes), std::move(strides), offset);
  p.insert_at = insert_at < 0 ? 0 : insert_at;
  return p;
}

// One integer index tensor, on the view's GPU, is the only advanced item.
bool is_one_device_index(const IndexPlan& p) {
  return p.view.is_cuda() && p.advanced.size() == 1 &&
         p.advanced[0].kind == AdvancedIndex::Kind::Integer &&
         p.advanced[0].tensor.device() == p.view.device();
}

// How many elements the advanced plan with one integer index addresses.
int64_t one_index_numel(const IndexPlan& p) {
  int64_t n = p.advanced[0].tensor.numel();
  for (int64_t d = 0; d < p.view.ndim(); ++d)
    if (d != p.advanced[0].view_dim) n *= p.view.sizes()[d];
  return n;
}

// A bool mask, the only advanced item.
bool is_one_mask(const IndexPlan& p) {
  return p.advanced.size() == 1 && p.advanced[0].kind == AdvancedIndex::Kind::Mask;
}

}  // namespace

// FIRST_DIM (Note [Index paths]): not taken for a zero-size result, whose indices the OFFSETS
// path still checks.
bool is_first_dim_index(const Tensor& x, const IndexList& key) {
  if (key.size() != 1 || key[0].kind != Kind::Tensor) return false;
  const Tensor& index = key[0].tensor;
  if (!x.is_cuda() || x.ndim() == 0 || index.dtype() != ScalarType::Int64 ||
      index.device() != x.device() || index.numel() == 0)
    return false;
  for (int64_t d = 1; d < x.ndim(); ++d)
    if (x.sizes()[d] == 0) return false;
  return true;
}

IndexPlan plan_getitem(const Tensor& x, const IndexList& key) {
  if (is_first_dim_index(x, key)) {
    IndexPlan p;
    p.kind = IndexPlanKind::GATHER;
    p.path = IndexPath::FIRST_DIM;
    p.view = x;
    p.advanced.push_back({AdvancedIndex::Kind::Integer, key[0].tensor, 0, false});
    return p;
  }
  IndexPlan p = plan(x, key);
  if (!p.is_advanced()) return p;  // VIEW, VIEW
  p.kind = IndexPlanKind::GATHER;
  if (is_one_mask(p) && p.view.is_cuda() && p.view.ndim() > 0 &&
      p.advanced[0].tensor.sizes() == p.view.sizes())
    p.path = IndexPath::MASK_COMPACT;
  else if (is_one_device_index(p) && one_index_numel(p) > 0)
    p.path = IndexPath::ONE_INDEX;  // a zero-size result still checks its indices: OFFSETS
  else
    p.path = IndexPath::OFFSETS;
  return p;
}

IndexPlan plan_setitem(const Tensor& x, const IndexList& key, const Tensor& value) {
  IndexPlan p = plan(x, key);
  p.kind = !value.defined()  ? IndexPlanKind::FILL
           : p.is_advanced() ? IndexPlanKind::SCATTER
                             : IndexPlanKind::COPY;
  if (!p.is_advanced()) return p;  // COPY or FILL through the view
  if (!value.defined() && is_one_mask(p) && p.advanced[0].tensor.ndim() > 0)
    p.path = IndexPath::MASKED_FILL;
  else if (is_one_device_index(p) && !p.advanced[0].tensor.storage().is_same(p.view.storage()))
    // An index sharing the destination's memory takes OFFSETS, which reads all of it before
    // writing.
    p.path = IndexPath::ONE_INDEX;
  else
    p.path = IndexPath::OFFSETS;
  return p;
}

}  // namespace genesis

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
        strides.push_back(x.strides()[dim] * it.step);
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
  if (any_bool && !has_tensor) {
    // Python bools alone: one dim of size 1 or 0, a plain view.
    sizes.insert(sizes.begin() + insert_at, all_true ? 1 : 0);
    strides.insert(strides.begin() + insert_at, 0);
  }
  p.view = x.as_strided(std::move(sizes), std::move(strides), offset);
  p.insert_at = insert_at < 0 ? 0 : insert_at;
  return p;
}

}  // namespace

IndexPlan plan_getitem(const Tensor& x, const IndexList& key) {
  IndexPlan p = plan(x, key);
  p.kind = p.is_advanced() ? IndexPlanKind::GATHER : IndexPlanKind::VIEW;
  return p;
}

IndexPlan plan_setitem(const Tensor& x, const IndexList& key, bool value_is_tensor) {
  IndexPlan p = plan(x, key);
  if (!value_is_tensor)
    p.kind = IndexPlanKind::FILL;
  else
    p.kind = p.is_advanced() ? IndexPlanKind::SCATTER : IndexPlanKind::COPY;
  return p;
}

}  // namespace genesis

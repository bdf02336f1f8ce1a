#include "index/plan.h"

#include "core/errors.h"
#include "index/slice.h"
#include "ops/copy.h"

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

bool has_advanced(const IndexList& key) {
  for (const IndexItem& it : key)
    if (it.kind == Kind::Tensor) return true;
  return false;
}

// The view selected by a key of ints, slices, None, Ellipsis and Python bools.
// A Python bool is NumPy's 0-d boolean index, an advanced index: all the bools of a key, with the
// ints beside them, make one new dim of size 1 (all True) or 0 (any False). It stands where the
// first of them is when they are adjacent in the key, else in front (NumPy's placement rule).
Tensor basic_view(const Tensor& x, const IndexList& key) {
  int64_t consumed = 0;  // dims of x that the key addresses
  int ellipses = 0;
  int64_t bools = 0, first_adv = -1, last_adv = -1, n_adv = 0;
  bool all_true = true;
  for (size_t i = 0; i < key.size(); ++i) {
    const IndexItem& it = key[i];
    if (it.kind == Kind::Integer || it.kind == Kind::Slice) ++consumed;
    if (it.kind == Kind::Ellipsis) ++ellipses;
    if (it.kind == Kind::Boolean) {
      ++bools;
      all_true = all_true && it.boolean;
    }
    if (it.kind == Kind::Integer || it.kind == Kind::Boolean) {
      if (first_adv < 0) first_adv = static_cast<int64_t>(i);
      last_adv = static_cast<int64_t>(i);
      ++n_adv;
    }
  }
  bool adjacent = last_adv - first_adv + 1 == n_adv;
  int64_t bool_dim_at = -1;  // output position of the bools' dim
  GENESIS_CHECK_INDEX(ellipses <= 1, "index", "an index can only have a single ellipsis ('...')");
  GENESIS_CHECK_INDEX(consumed <= x.ndim(), "index", "too many indices for tensor of dimension ",
                      x.ndim(), " (got ", consumed, ")");

  Shape sizes, strides;
  int64_t offset = x.storage_offset();
  int64_t dim = 0;  // next dim of x
  for (size_t i = 0; i < key.size(); ++i) {
    const IndexItem& it = key[i];
    if (bools > 0 && static_cast<int64_t>(i) == first_adv)
      bool_dim_at = adjacent ? static_cast<int64_t>(sizes.size()) : 0;
    switch (it.kind) {
      case Kind::Integer: {
        int64_t size = x.sizes()[dim];
        int64_t i = it.integer;
        GENESIS_CHECK_INDEX(i >= -size && i < size, "index", "index ", i,
                            " is out of bounds for dimension ", dim, " with size ", size);
        offset += (i < 0 ? i + size : i) * x.strides()[dim];
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
      case Kind::Boolean:
        break;  // placed below
      case Kind::Ellipsis:
        for (int64_t n = x.ndim() - consumed; n > 0; --n, ++dim) {
          sizes.push_back(x.sizes()[dim]);
          strides.push_back(x.strides()[dim]);
        }
        break;
      case Kind::Tensor:
        break;  // excluded by the caller
    }
  }
  for (; dim < x.ndim(); ++dim) {  // trailing dims the key leaves alone
    sizes.push_back(x.sizes()[dim]);
    strides.push_back(x.strides()[dim]);
  }
  if (bool_dim_at >= 0) {
    sizes.insert(sizes.begin() + bool_dim_at, all_true ? 1 : 0);
    strides.insert(strides.begin() + bool_dim_at, 0);
  }
  return x.as_strided(std::move(sizes), std::move(strides), offset);
}

[[noreturn]] void advanced_not_supported() {
  GENESIS_FAIL(ErrorKind::NotImplemented, "index",
               "advanced indexing with integer or boolean tensors, lists or arrays is not "
               "supported yet (GATHER/SCATTER plans); use ints, slices, None and ...");
}

}  // namespace

IndexPlan plan_getitem(const Tensor& x, const IndexList& key) {
  if (has_advanced(key)) advanced_not_supported();
  return IndexPlan{IndexPlanKind::VIEW, basic_view(x, key)};
}

IndexPlan plan_setitem(const Tensor& x, const IndexList& key, bool value_is_tensor) {
  if (has_advanced(key)) advanced_not_supported();
  return IndexPlan{value_is_tensor ? IndexPlanKind::COPY : IndexPlanKind::FILL, basic_view(x, key)};
}

Tensor index_get(const Tensor& x, const IndexList& key) { return plan_getitem(x, key).view; }

void index_put(const Tensor& x, const IndexList& key, const Tensor& value) {
  Tensor view = plan_setitem(x, key, true).view;
  // NumPy lets the value carry extra leading size-1 dims: x[0] = ones(1, 3).
  Tensor v = value;
  while (v.ndim() > view.ndim() && v.sizes()[0] == 1)
    v = v.as_strided(Shape(v.sizes().begin() + 1, v.sizes().end()),
                     Shape(v.strides().begin() + 1, v.strides().end()), v.storage_offset());
  ops::copy_(view, v);
}

void index_fill(const Tensor& x, const IndexList& key, const Scalar& value) {
  ops::fill_(plan_setitem(x, key, false).view, value, "setitem");
}

}  // namespace genesis

#pragma once
// Note [Index plans]
// Every `x[key]` and `x[key] = value` is planned here, in C++, into one of five kinds:
//   VIEW    getitem with ints/slices/None/Ellipsis/Python bools only: new sizes, strides, offset
//   GATHER  getitem with an integer or boolean tensor index: one gather kernel
//   SCATTER setitem with an advanced index and a tensor value: one scatter kernel
//   COPY    setitem with a basic index and a tensor value: one strided copy into the view
//   FILL    setitem with a scalar value: a fill over the view, or over the indexed positions
// Planning applies the basic items at once (a view of x in which the dims addressed by index
// tensors remain) and records the advanced items. Executing an advanced plan turns boolean masks
// into integer indices (nonzero: the one place a CUDA getitem waits for the device), broadcasts
// the indices (NumPy rules) and folds them into byte offsets, checked against the dims' sizes.
// Result layout (NumPy): the broadcast index dims replace the indexed dims where all advanced
// items (index tensors, masks, and ints and Python bools beside them) are adjacent in the key,
// else they go first.
//
// Note [Index paths]
// The planner also chooses how a plan runs, and the executor (ops/indexing.cpp) runs exactly
// that, so `Tensor._index_plan(key)` reports what `x[key]` does:
//   VIEW          no kernel: the view itself (VIEW), a strided copy (COPY) or fill (FILL) into it
//   OFFSETS       the general advanced path: masks to coordinates, indices broadcast and folded
//                 into byte offsets (checked against the dims), one gather/scatter kernel
//   ONE_INDEX     one integer index tensor on the view's GPU: gathered or scattered through
//                 directly, no offsets tensor, the bounds check fused (Note [Fused scatter])
//   FIRST_DIM     x[index] for one int64 index tensor on x's GPU: ONE_INDEX along dim 0, planned
//                 without walking the key (the commonest advanced index, host time matters)
//   MASK_COMPACT  x[mask] with one mask over all of x's dims on a GPU: the values compacted
//                 directly (Note [Mask compaction] in kernels/index.cuh)
//   MASKED_FILL   x[mask] = scalar with one mask: a masked fill, no nonzero, never a wait
// Checks that need the index values (bounds on CUDA) are the executor's; the planner looks only
// at shapes, dtypes and devices.
#include <vector>

#include "index/index_item.h"

namespace genesis {

enum class IndexPlanKind : int8_t { VIEW, GATHER, SCATTER, COPY, FILL };
const char* index_plan_kind_name(IndexPlanKind kind);

enum class IndexPath : int8_t { VIEW, OFFSETS, ONE_INDEX, FIRST_DIM, MASK_COMPACT, MASKED_FILL };
const char* index_path_name(IndexPath path);

struct AdvancedIndex {
  enum class Kind : int8_t { Integer, Mask, Boolean };
  Kind kind;
  Tensor tensor;         // Integer: an integer tensor; Mask: a bool tensor
  int64_t view_dim = 0;  // first dim of the plan's view it addresses (Mask: tensor.ndim() dims)
  bool boolean = false;  // Boolean: a Python bool among tensor indices (a 0-d mask)
};

struct IndexPlan {
  IndexPlanKind kind = IndexPlanKind::VIEW;
  IndexPath path = IndexPath::VIEW;
  Tensor view;  // x with the basic items applied; advanced dims still present
  std::vector<AdvancedIndex> advanced;
  int64_t insert_at = 0;  // where the broadcast index dims go among the view's other dims

  bool is_advanced() const { return !advanced.empty(); }
};

// Plans x[key]. Raises IndexError for out-of-range integers, too many indices or a mask whose
// shape does not match the dims it indexes.
IndexPlan plan_getitem(const Tensor& x, const IndexList& key);
// Whether x[key] takes the FIRST_DIM path (one int64 index tensor on x's GPU, a non-empty
// result). plan_getitem plans exactly that; the executor asks first, so that the commonest
// advanced index pays for no IndexPlan object.
bool is_first_dim_index(const Tensor& x, const IndexList& key);
// Plans x[key] = value; `value` is the tensor of a COPY/SCATTER, undefined for a FILL.
IndexPlan plan_setitem(const Tensor& x, const IndexList& key, const Tensor& value);

}  // namespace genesis

#pragma once
// Note [Index plans]
// Every `x[key]` and `x[key] = value` is planned here, in C++, into one of five kinds:
//   VIEW    getitem with ints/slices/None/Ellipsis/bools only: new sizes, strides and offset
//   GATHER  getitem with an integer or boolean tensor index (not yet implemented)
//   SCATTER setitem with an advanced index and a tensor value (not yet implemented)
//   COPY    setitem with a basic index and a tensor value: one strided copy into the view
//   FILL    setitem with a scalar value: a fill over the view
#include "core/scalar.h"
#include "index/index_item.h"

namespace genesis {

enum class IndexPlanKind : int8_t { VIEW, GATHER, SCATTER, COPY, FILL };
const char* index_plan_kind_name(IndexPlanKind kind);

struct IndexPlan {
  IndexPlanKind kind = IndexPlanKind::VIEW;
  Tensor view;  // VIEW, COPY, FILL: the view the key selects
};

// Plans x[key]. Raises IndexError for out-of-range integers or too many indices.
IndexPlan plan_getitem(const Tensor& x, const IndexList& key);
// Plans x[key] = value; `value_is_tensor` chooses COPY over FILL for basic keys.
IndexPlan plan_setitem(const Tensor& x, const IndexList& key, bool value_is_tensor);

// Executes the plans.
Tensor index_get(const Tensor& x, const IndexList& key);
void index_put(const Tensor& x, const IndexList& key, const Tensor& value);
void index_fill(const Tensor& x, const IndexList& key, const Scalar& value);

}  // namespace genesis

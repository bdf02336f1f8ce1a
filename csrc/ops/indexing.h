#pragma once
// x[key] and x[key] = value: plans from csrc/index run on the device's index loops (Note
// [Index plans] and Note [Index paths] in index/plan.h).
#include "core/scalar.h"
#include "core/tensor.h"
#include "index/index_item.h"
#include "vocab/scatter_reduce.h"

namespace genesis::ops {

Tensor index_get(const Tensor& x, const IndexList& key);
// With an accumulating `reduce`, x[key] op= value where every value counts, duplicate indices
// included (Note [Accumulating scatters] in vocab/scatter_reduce.h).
void index_put(const Tensor& x, const IndexList& key, const Tensor& value,
               ScatterReduce reduce = ScatterReduce::None);
void index_fill(const Tensor& x, const IndexList& key, const Scalar& value);

}  // namespace genesis::ops

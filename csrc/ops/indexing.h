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

// out[i][j][k] = x[i][index[i][j][k]][k] for dim 1 (torch.gather): on CUDA through the one-index
// gather kernel (Note [Gathering along a dim]), on the CPU one checked pass. `index` is int64 on
// x's device, has x's number of dims and is no larger than x in any dim but `dim`; `known_in_range`
// skips the bounds check's wait (indices made by genesis itself, e.g. sorted positions).
Tensor gather_along_dim(const Tensor& x, int64_t dim, const Tensor& index, bool known_in_range);
// x[i][index[i][j][k]][k] = values[i][j][k] (op= with an accumulating `reduce`) for dim 1
// (torch.scatter_), the same way: x seen with index's shape and a 0 stride at dim, one checked
// scatter kernel on CUDA, a check then one pass on the CPU (Note [Scattering along a dim on the
// CPU] in cpu/index.cpp). `values` broadcasts to index's shape.
void scatter_along_dim(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& values,
                       ScatterReduce reduce = ScatterReduce::None);

}  // namespace genesis::ops

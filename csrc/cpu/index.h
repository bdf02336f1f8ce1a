#pragma once
// CPU loops behind the advanced index plans (ops/indexing.cpp runs the plans).
#include <vector>

#include "core/tensor.h"
#include "vocab/scatter_reduce.h"

namespace genesis::cpu {

// offsets (int64, contiguous, the indices' broadcast shape) += index * byte_stride for one
// integer index tensor already broadcast to that shape; negative indices count from the end.
// Raises IndexError for an index outside [-size, size).
void add_index_offsets(const Tensor& offsets, const Tensor& index, int64_t size,
                       int64_t byte_stride, int64_t dim);

// out[i] = *(src(i) + offsets(i)), for operands viewed with out's shape (item-sized moves).
void gather(const Tensor& out, const Tensor& src, const Tensor& offsets);
// *(dst(i) + offsets(i)) = values(i); values is contiguous with dst's dtype. With an
// accumulating `reduce`, *(dst(i) + offsets(i)) = combine(itself, values(i)) instead, in
// row-major order of values (Note [Accumulating scatters] in vocab/scatter_reduce.h).
void scatter(const Tensor& dst, const Tensor& offsets, const Tensor& values,
             ops::ScatterReduce reduce = ops::ScatterReduce::None);
// dst(i) = pattern where mask(i), mask viewed with dst's shape.
void masked_fill(const Tensor& dst, const Tensor& mask, uint64_t pattern);
// For each dim of mask, the int64 coordinates of its true elements in row-major order.
std::vector<Tensor> nonzero(const Tensor& mask);

}  // namespace genesis::cpu

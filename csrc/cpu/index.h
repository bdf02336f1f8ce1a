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
// `split_dim` (-1: none) names a dim along which no two items share a destination: the threads
// then take slices of it, each in that order (Note [Scattering along a dim on the CPU]).
void scatter(const Tensor& dst, const Tensor& offsets, const Tensor& values,
             ops::ScatterReduce reduce = ops::ScatterReduce::None, int64_t split_dim = -1);
// torch.scatter_ along `dim` (Note [Scattering along a dim on the CPU]): *(dst(i) + index(i) *
// byte_stride) = values(i), or combined into it with an accumulating `reduce`, for dst (the
// destination seen with index's shape and a 0 stride at dim), values (contiguous, dst's dtype)
// and index (int64) of one shape, every index already checked to lie in [-size, size).
void scatter_along_dim(const Tensor& dst, const Tensor& values, const Tensor& index, int64_t dim,
                       int64_t size, int64_t byte_stride, ops::ScatterReduce reduce);
// torch.gather along `dim`: out(i) = *(src(i) + index(i) * byte_stride) for src (the source seen
// with index's shape and a 0 stride at dim) and index (int64) of out's shape; with `check`, an
// index outside [-size, size) is never read and raises IndexError (op "index") after the pass.
void gather_along_dim(const Tensor& out, const Tensor& src, const Tensor& index, int64_t dim,
                      int64_t size, int64_t byte_stride, bool check);
// Raises IndexError (op "index") for a value of the int64 `index` outside [-size, size).
void check_index_range(const Tensor& index, int64_t size, int64_t dim);
// dst(i) = pattern where mask(i), mask viewed with dst's shape.
void masked_fill(const Tensor& dst, const Tensor& mask, uint64_t pattern);
// For each dim of mask, the int64 coordinates of its true elements in row-major order.
std::vector<Tensor> nonzero(const Tensor& mask);

}  // namespace genesis::cpu

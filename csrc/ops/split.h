#pragma once
// Splitting a tensor into views along one dim (PyTorch's split, chunk, tensor_split, unbind).
// Every piece is a view of the input: no copy.
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace genesis::ops {

// Pieces of `split_size` along dim, the last one smaller when the size does not divide.
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim);
// Pieces of the given sizes, which must add up to the size of dim.
std::vector<Tensor> split_with_sizes(const Tensor& t, const Shape& sizes, int64_t dim);
// At most `chunks` pieces of ceil(size / chunks); fewer when the size is smaller.
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim);
// Exactly `sections` pieces, the first size % sections of them one longer (NumPy's array_split).
std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim);
// Pieces between the given indices, each range clamped as a Python slice is.
std::vector<Tensor> tensor_split_at(const Tensor& t, const Shape& indices, int64_t dim);
// tensor_split_at's pieces as (start, length) along a dim of `size`.
std::vector<std::pair<int64_t, int64_t>> tensor_split_ranges(int64_t size, const Shape& indices);
// The slices select(dim, i) for every i.
std::vector<Tensor> unbind(const Tensor& t, int64_t dim);

}  // namespace genesis::ops

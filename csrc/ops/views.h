#pragma once
// View ops: new sizes/strides/offset over the same storage, never a copy (reshape and flatten
// copy only when no view can express the result).
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace genesis::ops {

Tensor view(const Tensor& t, const Shape& shape);
Tensor reshape(const Tensor& t, const Shape& shape);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& t, const Shape& dims);
Tensor t(const Tensor& t);             // 2-D transpose; 0-d and 1-d come back as they are
Tensor reverse_dims(const Tensor& t);  // Tensor.T
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, const Shape& dims);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor expand(const Tensor& t, const Shape& sizes);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
// Tensor.unfold: the windows of `size` items every `step` along dim, as a new last dim (a view).
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
// Moves dims `source` to positions `destination` (same length, no repeats); the other dims keep
// their order.
Tensor movedim(const Tensor& t, const Shape& source, const Shape& destination);
// Splits dim into `sizes` (one of them may be -1), a view.
Tensor unflatten(const Tensor& t, int64_t dim, const Shape& sizes);
// The diagonal of the dim1 x dim2 planes (offset > 0: above the main diagonal) as a view; the
// two dims go and the diagonal becomes the last dim.
Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);
// Coordinate grids of 1-d (or 0-d) tensors, as stride-0 views: with xy indexing the first two
// dims are swapped (NumPy's default, PyTorch's indexing='xy').
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, bool xy);
// NumPy slice semantics on one dim (negative steps included); bounds are clamped.
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step);

}  // namespace genesis::ops

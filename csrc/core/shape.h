#pragma once
// Sizes and strides (in elements) and the arithmetic on them that every view op shares.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace genesis {

using Shape = std::vector<int64_t>;

std::string shape_str(const Shape& s);  // "(2, 3)"

// Number of elements; raises ValueError on a negative size or overflow.
int64_t checked_numel(const Shape& sizes, const char* op);
int64_t numel_of(const Shape& sizes);

Shape contiguous_strides(const Shape& sizes);

// Contiguous in row-major order, ignoring the strides of size-1 dims (and any zero-size tensor).
bool is_contiguous(const Shape& sizes, const Shape& strides);

// Wraps a possibly negative dim into [0, ndim); raises IndexError naming the op otherwise.
// A 0-d tensor accepts dims -1 and 0, as PyTorch does.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

// Resolves one -1 in a requested shape and checks that it holds `numel` elements.
Shape infer_size(const Shape& requested, int64_t numel, const char* op);

// Strides that let `new_sizes` view memory laid out as (sizes, strides), or nothing when the
// layout does not allow a view without copying.
std::optional<Shape> view_strides(const Shape& sizes, const Shape& strides, const Shape& new_sizes);

// NumPy/PyTorch broadcasting of two shapes; raises ValueError naming the op when they don't fit.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace genesis

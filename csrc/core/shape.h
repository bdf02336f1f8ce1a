#pragma once
// Sizes and strides (in elements) and the arithmetic on them that every view op shares.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace genesis {

using Shape = std::vector<int64_t>;

std::string shape_str(const Shape& s);  // "(2, 3)"

// Note [Checked sizes]
// Every size that comes from outside (a factory's shape, view/reshape/expand/narrow arguments,
// an index's broadcast shape) goes through this arithmetic, so that a tensor's element count and
// byte count always fit int64: a wrapped product would make a small storage for a huge shape
// and let kernels walk past it. A tensor also has at most kMaxDims dims (NumPy's limit), which
// bounds every recursion over dims.
constexpr int64_t kMaxDims = 64;

// Number of elements; raises ValueError on a negative size, more than kMaxDims dims, or a
// count that does not fit int64.
int64_t checked_numel(const Shape& sizes, const char* op);
// Bytes of `numel` items of `itemsize`; raises RuntimeError when they do not fit int64.
int64_t checked_nbytes(int64_t numel, int64_t itemsize, const char* op);
// a * b and a + b for non-negative sizes; raise ValueError naming the op on overflow.
int64_t checked_mul(int64_t a, int64_t b, const char* op);
int64_t checked_add(int64_t a, int64_t b, const char* op);
int64_t numel_of(const Shape& sizes);

Shape contiguous_strides(const Shape& sizes);

// Contiguous in row-major order, ignoring the strides of size-1 dims (and any zero-size tensor).
bool is_contiguous(const Shape& sizes, const Shape& strides);

// The channels-last strides of (N, C, *spatial) sizes: C innermost, then the spatial dims in
// order, then N (PyTorch's channels_last and channels_last_3d, for any rank >= 2).
Shape channels_last_strides(const Shape& sizes);
// Laid out channels-last, ignoring the strides of size-1 dims (and any zero-size tensor):
// PyTorch's is_contiguous(memory_format=channels_last) for 4-D, channels_last_3d for 5-D.
bool is_channels_last(const Shape& sizes, const Shape& strides);

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

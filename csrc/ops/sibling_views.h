#pragma once
// Views that tile one buffer, and fresh buffers laid out as they are (Note [Sibling views] in
// sibling_views.cpp).
#include <vector>

#include "core/tensor.h"

namespace genesis::ops {

// Fresh uninitialized tensors laid out as `views` and placed in one new buffer at the views'
// offsets relative to each other, when the views are siblings: one storage, dtype, size and
// stride, equally spaced offsets, together tiling a dense block with no item shared. Empty
// otherwise (the caller allocates each as it would).
std::vector<Tensor> empty_like_siblings(const std::vector<Tensor>& views);

// The tensor of `sizes` and `strides` (a layout that does not overlap itself) whose narrows
// along `dim` at `starts` are `pieces` (with `dim_dropped`: whose selects at 0, 1, ... along dim,
// unbind's pieces), as a view of the pieces' buffer: defined when the pieces lie in one storage
// in exactly that layout (gradients made by empty_like_siblings, say) and nothing else holds
// the storage, so that the joined tensor may be used and written as a new one. Undefined
// otherwise.
Tensor already_joined(const std::vector<Tensor>& pieces, const Shape& sizes, const Shape& strides,
                      int64_t dim, const std::vector<int64_t>& starts, bool dim_dropped = false);

}  // namespace genesis::ops

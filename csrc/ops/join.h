#pragma once
// Joining tensors along a dim (PyTorch's cat and stack): one new contiguous output, filled by one
// copy per input, which also casts each input to the promoted dtype.
#include <vector>

#include "core/tensor.h"

namespace genesis::ops {

// Inputs must match except along dim; 1-D inputs of shape (0,) are skipped whatever the others'
// ndim (PyTorch's legacy rule).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
// Inputs must all have one shape; the result gains a new dim of size tensors.size() at dim.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);

// Views with at least 1, 2 or 3 dims (NumPy's rules: a 1-D (n) becomes (1, n) and, for 3, a
// 1-D (n) becomes (1, n, 1) and a 2-D (m, n) becomes (m, n, 1)).
Tensor atleast_1d(const Tensor& t);
Tensor atleast_2d(const Tensor& t);
Tensor atleast_3d(const Tensor& t);
// cat along dim 1 (dim 0 when every input is 1-D), 0, and 2 of the atleast_* views, as NumPy.
Tensor hstack(const std::vector<Tensor>& tensors);
Tensor vstack(const std::vector<Tensor>& tensors);
Tensor dstack(const std::vector<Tensor>& tensors);
// 0-d and 1-D inputs become columns (n, 1); the rest join along dim 1.
Tensor column_stack(const std::vector<Tensor>& tensors);

}  // namespace genesis::ops

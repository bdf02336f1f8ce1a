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

}  // namespace genesis::ops

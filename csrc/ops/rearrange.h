#pragma once
// Copies that rearrange elements: flip and roll. Each result is a new contiguous tensor (as in
// PyTorch; NumPy's flip is a view), made by one strided copy of a view of the input.
#include "core/tensor.h"

namespace genesis::ops {

// Reverses the order of elements along each of `dims` (no repeats).
Tensor flip(const Tensor& t, const Shape& dims);
// Shifts elements along dims[i] by shifts[i], wrapping around; with no dims, the flattened
// tensor is rolled and the shape restored.
Tensor roll(const Tensor& t, const Shape& shifts, const Shape& dims);

}  // namespace genesis::ops

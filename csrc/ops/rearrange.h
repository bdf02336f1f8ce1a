#pragma once
// Copies that rearrange elements: flip and roll. Each result is a new contiguous tensor (as in
// PyTorch; NumPy's flip is a view), made by one strided copy of a view of the input.
#include <optional>

#include "core/tensor.h"

namespace genesis::ops {

// Reverses the order of elements along each of `dims` (no repeats).
Tensor flip(const Tensor& t, const Shape& dims);
// Shifts elements along dims[i] by shifts[i], wrapping around; with no dims, the flattened
// tensor is rolled and the shape restored.
Tensor roll(const Tensor& t, const Shape& shifts, const Shape& dims);
// Rotates by 90 degrees k times in the plane of dims (from the first towards the second); a new
// tensor.
Tensor rot90(const Tensor& t, int64_t k, const Shape& dims);
// The tensor repeated `repeats[d]` times along each dim d (repeats may have more dims than the
// tensor: leading ones are added), by one strided copy of a stride-0 view.
Tensor repeat(const Tensor& t, const Shape& repeats);
// NumPy's tile: repeat, with fewer repeats than dims padded by leading 1s.
Tensor tile(const Tensor& t, const Shape& reps);
// Each element repeated `repeats` times along dim (the flattened tensor when dim is absent).
Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim);
// With a tensor of repeats, one per item along dim (torch.repeat_interleave's tensor form).
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim);

}  // namespace genesis::ops

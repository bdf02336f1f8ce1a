#pragma once
// The channels-last layouts that results keep (Note [Layouts that results keep] in layout.cpp).
#include "core/tensor.h"

namespace genesis::ops {

// Whether t is a 4-D or 5-D tensor laid out channels-last and not also contiguous (a tensor
// that is both, as with one channel or one pixel, reads as contiguous): PyTorch's
// suggest_memory_format() == channels_last(_3d) for a dense tensor.
bool prefers_channels_last(const Tensor& t);

// An uninitialized channels-last tensor of (N, C, *spatial) sizes.
Tensor empty_channels_last(const Shape& sizes, ScalarType dtype, Device device);

// t laid out channels-last: itself when it already is, else a copy.
Tensor as_channels_last(const Tensor& t);

// An uninitialized result of `sizes` for an op whose operand `model` sets the layout:
// channels-last when model has these sizes and prefers it, else contiguous.
Tensor empty_in_layout_of(const Shape& sizes, ScalarType dtype, Device device, const Tensor& model);

// A new dense tensor whose items are all alike (uninitialized, or filled with one value) seen in
// model's layout: its own storage with channels-last strides when model has its sizes and
// prefers channels-last (the *_like creators), else itself.
Tensor uniform_in_layout_of(const Tensor& fresh, const Tensor& model);

}  // namespace genesis::ops

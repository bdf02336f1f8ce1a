#pragma once
// Tensor.resize_ and the resizing of out= tensors (Note [Resizing]).
#include "core/tensor.h"

namespace genesis::ops {

// Gives `t` the sizes `sizes` with contiguous strides, keeping its storage offset and the bytes
// already in its storage; grows the storage when it is too small (Note [Resizing]).
void resize_(Tensor& t, const Shape& sizes, const char* op = "resize_");

}  // namespace genesis::ops

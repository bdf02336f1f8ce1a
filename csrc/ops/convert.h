#pragma once
#include "core/tensor.h"

namespace genesis::ops {

// A copy of t in contiguous memory on `device` with `dtype`. With non_blocking, a GPU -> host
// copy lands in pinned memory and is not waited for; host -> GPU is asynchronous when t is pinned.
Tensor copy_to(const Tensor& t, ScalarType dtype, Device device, bool non_blocking = false);
// t itself when it already has this dtype and device (and copy is false), else copy_to.
Tensor to(const Tensor& t, ScalarType dtype, Device device, bool copy, bool non_blocking = false);
Tensor clone(const Tensor& t);
Tensor contiguous(const Tensor& t);

// Page-locked host memory from the pinned pool.
Tensor empty_pinned(const Shape& sizes, ScalarType dtype);
bool is_pinned(const Tensor& t);
// t in pinned memory (t itself when it already is); raises for CUDA tensors.
Tensor pin_memory(const Tensor& t);

}  // namespace genesis::ops

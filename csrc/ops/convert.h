#pragma once
#include "core/tensor.h"

namespace genesis::ops {

// A copy of t in contiguous memory on `device` with `dtype`.
Tensor copy_to(const Tensor& t, ScalarType dtype, Device device);
// t itself when it already has this dtype and device (and copy is false), else copy_to.
Tensor to(const Tensor& t, ScalarType dtype, Device device, bool copy);
Tensor clone(const Tensor& t);
Tensor contiguous(const Tensor& t);

}  // namespace genesis::ops

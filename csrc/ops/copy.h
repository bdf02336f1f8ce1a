#pragma once
#include "core/scalar.h"
#include "core/tensor.h"

namespace genesis::ops {

// dst <- src, with src broadcast to dst's shape and cast to dst's dtype; any strides, any devices.
// With non_blocking, a transfer between pinned host memory and a GPU is queued on the current
// stream and not waited for.
void copy_(const Tensor& dst, const Tensor& src, bool non_blocking = false);

// Every element of dst <- value (cast to dst's dtype); raises when the value overflows it.
void fill_(const Tensor& dst, const Scalar& value, const char* op = "fill_");

}  // namespace genesis::ops

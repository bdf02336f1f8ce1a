#pragma once
// Max pooling as one kernel: each window's largest item and its flat index in the input plane
// (genesis.nn.functional's max pools; their backward is a scatter-add at the indices).
#include <utility>

#include "core/tensor.h"

namespace genesis::ops {

// x (N, C, *spatial) with 1 to 3 spatial dims, float16/bfloat16/float32/float64; kernel,
// stride, padding, dilation and out (the output's spatial sizes, from the caller's ceil_mode
// rule) one entry per spatial dim. Returns (values (N, C, *out), int64 indices of that shape).
std::pair<Tensor, Tensor> max_pool(const Tensor& x, const Shape& kernel, const Shape& stride,
                                   const Shape& padding, const Shape& dilation, const Shape& out);

}  // namespace genesis::ops

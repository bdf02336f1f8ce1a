#pragma once
// CPU counting behind ops/counting.cpp.
#include "core/tensor.h"

namespace genesis::cpu {

// Adds to counts[v] (int64, contiguous, 1-d) one for each item v of `values` (int32 or int64,
// contiguous, 1-d), every item already known to lie in [0, counts.numel()).
void count_values(const Tensor& values, const Tensor& counts);

}  // namespace genesis::cpu

#pragma once
// bincount's CUDA pieces as the rest of genesis sees them: plain C++, no CUDA headers.
// csrc/cuda/counting.cpp implements them; csrc/cuda/no_cuda_counting.cpp raises in CPU-only builds.
#include <cstdint>

#include "core/tensor.h"

namespace genesis::cuda {

// The smallest and largest item of `values` (a nonempty contiguous 1-d int32 or int64 CUDA
// tensor), read in one pass, into range[0] and range[1] (a contiguous int64 tensor of 2 items on
// the same device).
void value_range(const Tensor& values, const Tensor& range);

// cpu::count_values's twin: counts[v] += 1 for each item v of `values` (contiguous 1-d int32 or
// int64) in [0, counts.numel()) (contiguous int64 counts on the same device); others skipped.
void count_values(const Tensor& values, const Tensor& counts);

}  // namespace genesis::cuda

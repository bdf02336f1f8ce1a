#pragma once
// Fills and arithmetic sequences on CUDA devices (kernels/fill.cuh; Note [CUDA backend layout]
// in cuda/runtime.h).
#include <cstdint>

#include "core/tensor.h"

namespace genesis::cuda {

// Writes `count` items of `itemsize` bytes (1, 2, 4 or 8), each equal to the low bytes of
// `pattern`, starting at `dst` on a CUDA device.
void fill(void* dst, int64_t count, int itemsize, uint64_t pattern, int device_index);

// Arithmetic sequences into a contiguous tensor, written as float64 or int64.
void sequence_f64(const Tensor& out, double start, double step, double end, int64_t half);
void sequence_i64(const Tensor& out, int64_t start, int64_t step);

}  // namespace genesis::cuda

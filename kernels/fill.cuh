#pragma once
// Host launcher for the fill kernel (device code lives in fill.cu).
#include <cstdint>

namespace genesis::kernels {

// Writes `count` items of `itemsize` bytes (1, 2, 4, 8), each the low bytes of `pattern`, to
// contiguous device memory at `dst`, on `stream` (a cudaStream_t; nullptr = default stream).
void launch_fill(void* dst, int64_t count, int itemsize, uint64_t pattern, void* stream);

}  // namespace genesis::kernels

namespace genesis::kernels {

// out[i] = start + i * step for i < half, else end - (n - 1 - i) * step (so a linspace ends
// exactly on `end`; arange passes half = n).
void launch_sequence_f64(double* out, int64_t n, double start, double step, double end,
                         int64_t half, void* stream);
// out[i] = start + i * step.
void launch_sequence_i64(int64_t* out, int64_t n, int64_t start, int64_t step, void* stream);

}  // namespace genesis::kernels

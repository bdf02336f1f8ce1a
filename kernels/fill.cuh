#pragma once
// Host launcher for the fill kernel (device code lives in fill.cu).
#include <cstdint>

namespace genesis::kernels {

// Writes `count` items of `itemsize` bytes (1, 2, 4, 8), each the low bytes of `pattern`, to
// contiguous device memory at `dst`, on `stream` (a cudaStream_t; nullptr = default stream).
void launch_fill(void* dst, int64_t count, int itemsize, uint64_t pattern, void* stream);

}  // namespace genesis::kernels

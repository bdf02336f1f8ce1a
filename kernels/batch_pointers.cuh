#pragma once
// Host launcher for the device arrays of matrix pointers that cuBLAS's and cuSOLVER's batched
// routines take (device code in batch_pointers.cu; Note [Batched small matrices] in
// csrc/cuda/solver.cpp).
#include <cstdint>

namespace genesis::kernels {

// out[i] = (char*)base + i * stride_bytes for i < batch: a device array of `batch` pointers,
// written on `stream` (a cudaStream_t; nullptr = default stream) with no copy from the host.
void launch_batch_pointers(void** out, void* base, int64_t stride_bytes, int64_t batch,
                           void* stream);

}  // namespace genesis::kernels

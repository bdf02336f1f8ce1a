#include <cuda_runtime.h>

#include "kernels/batch_pointers.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

__global__ void batch_pointers(char** out, char* base, int64_t stride_bytes, int64_t batch) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < batch;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = base + i * stride_bytes;
}

}  // namespace

void launch_batch_pointers(void** out, void* base, int64_t stride_bytes, int64_t batch,
                           void* stream) {
  if (batch <= 0) return;
  const int64_t blocks = (batch + kThreads - 1) / kThreads;
  batch_pointers<<<static_cast<int>(blocks < 65536 ? blocks : 65536), kThreads, 0,
                   static_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<char**>(out), static_cast<char*>(base), stride_bytes, batch);
}

}  // namespace genesis::kernels

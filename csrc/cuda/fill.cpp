#include "kernels/fill.cuh"
#include "cuda/backend.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"

namespace genesis::cuda {

void fill(void* dst, int64_t count, int itemsize, uint64_t pattern, int device_index) {
  if (count == 0) return;
  DeviceGuard guard(device_index);
  kernels::launch_fill(dst, count, itemsize, pattern,
                       reinterpret_cast<void*>(current_stream(device_index)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

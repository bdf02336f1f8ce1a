#include "cuda/random.h"

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/random.cuh"

namespace genesis::cuda {

void random_fill(const Tensor& out, philox::Kind kind, uint64_t seed, uint64_t offset, int64_t low,
                 uint64_t range) {
  GENESIS_CHECK(out.is_contiguous() && out.is_cuda(), "random",
                "expected a contiguous CUDA tensor");
  if (out.numel() == 0) return;
  int device = out.device().index;
  DeviceGuard guard(device);
  kernels::launch_random(out.mutable_data(), static_cast<int>(out.dtype()), out.numel(), seed,
                         offset, static_cast<int>(kind), low, range,
                         reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

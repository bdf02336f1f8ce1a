#include "cuda/max_pool.h"

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/max_pool.cuh"

namespace genesis::cuda {

void max_pool(const Tensor& x, const PoolGeometry& g, const Tensor& values, const Tensor& indices) {
  int device = x.device().index;
  DeviceGuard guard(device);
  kernels::launch_max_pool(static_cast<int>(x.dtype()), x.data(), g, values.mutable_data(),
                           indices.mutable_data(), reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

#pragma once
// A CUDA driver function fetched through the runtime (genesis does not link libcuda): nullptr when
// the driver lacks it. Asking starts CUDA, so callers fetch at first use, never at module load.
// Version 4000 (CUDA 4.0) of each: cuMemGetAddressRange is then its 64-bit _v2.
#include <cuda_runtime_api.h>

namespace genesis::cuda {

template <typename Fn>
Fn driver_entry(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 4000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(p);
}

}  // namespace genesis::cuda

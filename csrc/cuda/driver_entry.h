#pragma once
// A CUDA driver function fetched through the runtime (genesis does not link libcuda): nullptr when
// the driver lacks it. Asking starts CUDA, so callers fetch at first use, never at module load.
// `version` is the CUDA version whose form of the function is wanted, at least the one that
// brought it (the runtime finds nothing for an older one): 4000 (CUDA 4.0) makes
// cuMemGetAddressRange its 64-bit _v2; cuGraphLaunch came with CUDA 10.0.
#include <cuda_runtime_api.h>

namespace genesis::cuda {

template <typename Fn>
Fn driver_entry(const char* name, int version = 4000) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &status) !=
          cudaSuccess ||
      status != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(p);
}

}  // namespace genesis::cuda

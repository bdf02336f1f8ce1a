// Loading and launching genesis.compile's generated kernels (cuda/fused_kernels.h).
#include "cuda/fused_kernels.h"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <utility>

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"

namespace genesis::cuda {

int device_architecture(int device) {
  int major = 0, minor = 0;
  GENESIS_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GENESIS_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

int multiprocessors(int device) {
  int n = 0;
  GENESIS_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
  return n;
}

void* fused_kernel(const std::string& cubin, const std::string& name) {
  // Libraries are never unloaded: a program is a few kilobytes and its kernels may run again.
  static std::mutex mutex;
  static std::map<std::string, cudaLibrary_t> libraries;  // by cubin
  static std::map<std::pair<std::string, std::string>, cudaKernel_t> kernels;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(name, cubin);
  if (auto it = kernels.find(key); it != kernels.end()) return reinterpret_cast<void*>(it->second);
  cudaLibrary_t library = nullptr;
  if (auto it = libraries.find(cubin); it != libraries.end()) {
    library = it->second;
  } else {
    cudaError_t err =
        cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (err != cudaSuccess) {
      cudaGetLastError();
      GENESIS_FAIL(ErrorKind::Runtime, "compile", "the driver could not load a fused kernel (",
                   cudaGetErrorString(err), ")");
    }
    libraries.emplace(cubin, library);
  }
  cudaKernel_t kernel = nullptr;
  cudaError_t err = cudaLibraryGetKernel(&kernel, library, name.c_str());
  if (err != cudaSuccess) {
    cudaGetLastError();
    GENESIS_FAIL(ErrorKind::Runtime, "compile", "the fused program has no kernel ", name, " (",
                 cudaGetErrorString(err), ")");
  }
  kernels.emplace(std::move(key), kernel);
  return reinterpret_cast<void*>(kernel);
}

void launch_fused(void* kernel, int device, uintptr_t stream, unsigned blocks, unsigned threads,
                  void** args, unsigned blocks_y) {
  DeviceGuard guard(device);
  GENESIS_CUDA_CHECK(cudaLaunchKernel(static_cast<const void*>(kernel), dim3(blocks, blocks_y),
                                      dim3(threads), args, 0,
                                      reinterpret_cast<cudaStream_t>(stream)));
}

}  // namespace genesis::cuda

// The CUDA backend's device queries and byte copies (csrc/cuda/backend.h).
#include <cuda_runtime_api.h>

#include "cuda/backend.h"
#include "cuda/check.h"

#ifndef GENESIS_CUDA_ARCHS
#define GENESIS_CUDA_ARCHS ""
#endif

namespace genesis::cuda {

bool compiled() { return true; }

std::string architectures() { return GENESIS_CUDA_ARCHS; }

std::string runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int device_count() {
  // Without a driver or a GPU this fails; genesis then simply has no CUDA devices.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

int current_device() {
  GENESIS_CHECK(device_count() > 0, "cuda", "no CUDA device is available");
  int index = 0;
  GENESIS_CUDA_CHECK(cudaGetDevice(&index));
  return index;
}

void set_device(int index) {
  Device d = resolve(Device{DeviceType::CUDA, index});
  GENESIS_CUDA_CHECK(cudaSetDevice(d.index));
}

Device resolve(Device device) {
  int count = device_count();
  GENESIS_CHECK(count > 0, "cuda",
                "no CUDA device is available (genesis was built with CUDA, but the driver "
                "reports no GPU); use device='cpu'");
  if (device.index < 0) return Device{DeviceType::CUDA, current_device()};
  GENESIS_CHECK(device.index < count, "cuda", "invalid device 'cuda:", device.index, "': ", count,
                " CUDA device(s) available");
  return device;
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  // Unified addressing lets the runtime tell host from device pointers.
  GENESIS_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, cudaMemcpyDefault));
}

}  // namespace genesis::cuda

// The CUDA backend's device queries and byte copies (csrc/cuda/backend.h).
#include <cuda_runtime_api.h>

#include "cuda/backend.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"

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
  // The copy runs on the CUDA side's current stream, so it follows the work queued there. Only a
  // copy to the host waits (for that stream, never the whole device): the caller reads the
  // bytes next. A copy from pageable host memory returns once the runtime has staged the
  // source, so the caller may reuse it at once; device-to-device copies stay queued.
  int index = dst_device.is_cuda() ? dst_device.index : src_device.index;
  DeviceGuard guard(index);
  auto stream = reinterpret_cast<cudaStream_t>(current_stream(index));
  GENESIS_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, stream));
  if (dst_device.is_cpu() || is_pinned(src)) GENESIS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_bytes_async(void* dst, const void* src, size_t nbytes, StreamId stream,
                      int device_index) {
  if (nbytes == 0) return;
  DeviceGuard guard(device_index);
  GENESIS_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, reinterpret_cast<cudaStream_t>(stream)));
}

}  // namespace genesis::cuda

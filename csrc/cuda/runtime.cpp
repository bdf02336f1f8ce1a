// The CUDA build, its devices and the device-backend registration (cuda/runtime.h).
#include <cuda_runtime_api.h>

#include "cuda/runtime.h"

#include <pthread.h>

#include <array>
#include <atomic>

#include "core/caller_lock.h"
#include "core/device_backend.h"
#include "core/graph_capture.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/index_errors.h"
#include "cuda/memory.h"

#ifndef GENESIS_CUDA_ARCHS
#define GENESIS_CUDA_ARCHS ""
#endif

namespace genesis::cuda {

void no_device() {
  GENESIS_FAIL(ErrorKind::Runtime, "cuda",
               "no CUDA device is available (genesis was built with CUDA, but the driver "
               "reports no GPU); use device='cpu'");
}

namespace {
std::atomic<bool> cuda_started{false};  // cudaGetDeviceCount has initialised the driver
std::atomic<bool> forked_after_start{false};
void mark_forked_child() {
  if (cuda_started.load(std::memory_order_relaxed))
    forked_after_start.store(true, std::memory_order_relaxed);
}
}  // namespace

bool forked_after_cuda_started() { return forked_after_start.load(std::memory_order_relaxed); }

void forked_child_error() {
  GENESIS_FAIL(ErrorKind::Runtime, "cuda",
               "cannot use CUDA in a process made by fork() after the parent process started "
               "CUDA; use the 'spawn' or 'forkserver' start method of multiprocessing "
               "(multiprocessing.set_start_method('spawn')), or start CUDA only in the children");
}

void throw_cuda_error(const char* expr, cudaError_t err) {
  cudaGetLastError();  // clear the sticky-free error so the next call starts clean
  if (forked_after_cuda_started()) forked_child_error();
  throw_error(ErrorKind::Runtime, "cuda", str_cat(expr, " failed: ", cudaGetErrorString(err)));
}

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
    cuda_started.store(true, std::memory_order_relaxed);
    return n;
  }();
  return count;
}

void bind_thread_context() {
  // Errors are left to the call that follows (a forked child's, say, raises there with its own
  // message): binding is only a head start for the runtime.
  int index = 0;
  if (cudaGetDevice(&index) != cudaSuccess || cudaSetDevice(index) != cudaSuccess)
    cudaGetLastError();
}

int current_device() {
  if (forked_after_cuda_started()) forked_child_error();
  if (device_count() == 0) no_device();
  int index = 0;
  GENESIS_CUDA_CHECK(cudaGetDevice(&index));
  return index;
}

void set_device(int index) {
  Device d = resolve(Device{DeviceType::CUDA, index});
  GENESIS_CUDA_CHECK(cudaSetDevice(d.index));
}

Device resolve(Device device) {
  if (forked_after_cuda_started()) [[unlikely]]
    forked_child_error();
  int count = device_count();
  if (count == 0) no_device();
  if (device.index < 0) return Device{DeviceType::CUDA, current_device()};
  GENESIS_CHECK(device.index < count, "cuda", "invalid device 'cuda:", device.index, "': ", count,
                " CUDA device(s) available");
  return device;
}

void synchronize_device(int device_index) {
  check_not_capturing("synchronize");  // Note [Syncs during capture]
  DeviceGuard guard(resolve(Device{DeviceType::CUDA, device_index}).index);
  {
    UnlockedRegion unlocked;  // Note [Releasing the caller's lock]
    GENESIS_CUDA_CHECK(cudaDeviceSynchronize());
  }
  raise_index_error(current_device(), "synchronize");  // Note [Deferred index errors]
}

DeviceProperties device_properties(int device_index) {
  int index = resolve(Device{DeviceType::CUDA, device_index}).index;
  cudaDeviceProp p{};
  GENESIS_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  return DeviceProperties{p.name, p.totalGlobalMem, p.multiProcessorCount, p.major, p.minor};
}

namespace {
// A device attribute, looked up once per device (0 marks "not yet": neither attribute below is 0).
template <cudaDeviceAttr Attribute>
int cached_attribute(int device_index) {
  static std::array<std::atomic<int>, kMaxCudaDevices> cached{};
  int index = resolve(Device{DeviceType::CUDA, device_index}).index;
  int value = cached[index].load(std::memory_order_relaxed);
  if (value == 0) {
    GENESIS_CUDA_CHECK(cudaDeviceGetAttribute(&value, Attribute, index));
    cached[index].store(value, std::memory_order_relaxed);
  }
  return value;
}
}  // namespace

int multiprocessor_count(int device_index) {
  return cached_attribute<cudaDevAttrMultiProcessorCount>(device_index);
}

int compute_capability_major(int device_index) {
  return cached_attribute<cudaDevAttrComputeCapabilityMajor>(device_index);
}

void memory_info(int device_index, size_t* free_bytes, size_t* total_bytes) {
  DeviceGuard guard(resolve(Device{DeviceType::CUDA, device_index}).index);
  GENESIS_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
}

void register_backend() {
  static const bool handler = pthread_atfork(nullptr, nullptr, mark_forked_child) == 0;
  (void)handler;
  register_device_backend(DeviceType::CUDA, DeviceBackend{allocator, resolve});
}

}  // namespace genesis::cuda

#pragma once
// Makes a device current for a scope and restores the previous one.
#include "cuda/check.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

// Note [A thread's first CUDA call]
// A host thread starts with no CUDA context current. The runtime binds the current device's
// primary context lazily, but only after its kernel launch has failed once with
// CUDA_ERROR_INVALID_CONTEXT (seen under compute-sanitizer, which counts it as an error, when
// backward ran in a new Python thread). So the first DeviceGuard of each thread makes the
// current device current explicitly (cudaSetDevice binds its primary context at once); after
// that the check is one thread-local flag.
void bind_thread_context();  // cudaSetDevice(current device), once per thread

class DeviceGuard {
 public:
  explicit DeviceGuard(int index) {
    static thread_local bool bound = false;
    if (!bound) [[unlikely]] {
      bind_thread_context();
      bound = true;
    }
    // With one device it is always the current one: skip the query (a visible share of a small
    // op's host time).
    if (index == 0 && device_count() == 1) return;
    GENESIS_CUDA_CHECK(cudaGetDevice(&previous_));
    if (index >= 0 && index != previous_)
      GENESIS_CUDA_CHECK(cudaSetDevice(index));
    else
      previous_ = -1;
  }
  ~DeviceGuard() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace genesis::cuda

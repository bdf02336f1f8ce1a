#pragma once
// Makes a device current for a scope and restores the previous one.
#include "cuda/check.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

class DeviceGuard {
 public:
  explicit DeviceGuard(int index) {
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

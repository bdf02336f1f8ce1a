#pragma once
// The CUDA backend as the rest of genesis sees it: plain C++ declarations, no CUDA headers.
// csrc/cuda/*.cpp implement them with the CUDA runtime; csrc/cuda/no_cuda.cpp implements them
// for CPU-only builds (queries answer "nothing", everything else raises RuntimeError).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/allocator.h"
#include "core/device.h"

namespace genesis::cuda {

bool compiled();                // whether this build has the CUDA backend
std::string architectures();    // the architectures the kernels were built for, "80 90"
std::string runtime_version();  // "13.0", or "" without CUDA
int device_count();             // 0 without a driver or GPU; never raises
int current_device();
void set_device(int index);

// Gives a CUDA device its concrete index ("cuda" -> "cuda:<current>") and checks that it exists;
// raises RuntimeError when no CUDA device is available.
Device resolve(Device device);

Allocator* allocator(int device_index);

// Copies bytes between any two devices (host pointers are CPU memory); returns when done.
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);

// Writes `count` items of `itemsize` bytes (1, 2, 4 or 8), each equal to the low bytes of
// `pattern`, starting at `dst` on a CUDA device.
void fill(void* dst, int64_t count, int itemsize, uint64_t pattern, int device_index);

}  // namespace genesis::cuda

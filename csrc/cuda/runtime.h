#pragma once
// Note [CUDA backend layout]
// The CUDA backend as the rest of genesis sees it: plain C++ declarations, one header per area,
// no CUDA headers. Each area `X` has `X.h` (the declarations), `X.cpp` (CUDA runtime host code,
// launching the kernels of kernels/X.cu) and `no_cuda_X.cpp`, the stub a CPU-only build compiles
// instead (queries answer "nothing", everything else raises the one no-device error). A new CUDA
// op family is one more such triple.
//
// This header: the build, the devices, and the device-backend registration.
#include <cstddef>
#include <string>

#include "core/device.h"
#include "vocab/limits.h"

namespace genesis::cuda {

bool compiled();                // whether this build has the CUDA backend
std::string architectures();    // the architectures the kernels were built for, "80 90"
std::string runtime_version();  // "13.0", or "" without CUDA
int device_count();             // 0 without a driver or GPU; never raises
int current_device();
void set_device(int index);
void synchronize_device(int device_index);

// Gives a CUDA device its concrete index ("cuda" -> "cuda:<current>") and checks that it exists;
// raises no_device() when no CUDA device is available.
Device resolve(Device device);

// The one error for "a CUDA device was asked for and there is none", worded for this build
// (built without CUDA, or built with CUDA but the driver reports no GPU).
[[noreturn]] void no_device();

struct DeviceProperties {
  std::string name;
  size_t total_memory = 0;
  int multi_processor_count = 0;
  int major = 0, minor = 0;
};
DeviceProperties device_properties(int device_index);
int multiprocessor_count(int device_index);      // looked up once per device
int compute_capability_major(int device_index);  // likewise
void memory_info(int device_index, size_t* free_bytes, size_t* total_bytes);

// Note [CUDA after fork]: the CUDA driver does not survive fork(): a child made after the
// parent started CUDA cannot use it, and its inherited device pointers mean nothing there. A
// pthread_atfork handler (installed by register_backend) marks such a child; resolve(), which
// every CUDA op, allocation and stream lookup passes, then raises one clear error naming the
// 'spawn' start method, as PyTorch does, and freeing an inherited CUDA tensor there drops the
// block instead of calling the driver. A child forked before CUDA started may use CUDA.
bool forked_after_cuda_started();
[[noreturn]] void forked_child_error();

// Fills core's device-backend registry for CUDA (Note [Device backends] in
// core/device_backend.h); called once by the module's initialisation.
void register_backend();

}  // namespace genesis::cuda

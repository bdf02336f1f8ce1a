#pragma once
// Note [Driver launches]: the flat elementwise kernels, the ones small ops run, launch through
// the driver's cuLaunchKernel with the kernel's function handle for the device, looked up once
// per kernel and device. That skips the runtime's per-launch work. On an H100, over 7-9
// alternating rounds in one process, a one-element add launched in 2.78 us this way, 3.21 us
// through a context-independent cudaKernel_t (the driver resolves it on every launch) and
// 3.42 us through <<<>>>: a visible share of `a + b`'s host time. cuLaunchKernel is fetched
// through the runtime, so genesis still does not link libcuda. Where a lookup or the driver
// launch fails (no context current yet on a new thread, say) the runtime launch runs instead.
#include <cuda.h>
#include <cuda_runtime.h>

#include <atomic>
#include <type_traits>

#include "vocab/limits.h"

namespace genesis::kernels {

using DriverLaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, CUstream, void**, void**);

inline DriverLaunchFn driver_launch_fn() {
  static const DriverLaunchFn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &p, 4000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return DriverLaunchFn{nullptr};
    }
    return reinterpret_cast<DriverLaunchFn>(p);
  }();
  return fn;
}

// Kernel<<<blocks, threads, 0, stream>>>(args...), through the driver when it can. `device` is
// the current device (-1: unknown, use the runtime). The kernel is a template argument so each
// one keeps its own handles; the arguments must have exactly the kernel's parameter types (the
// driver copies each parameter's bytes from them).

template <auto Kernel, typename... Args>
void launch_kernel(int device, unsigned blocks, unsigned threads, cudaStream_t stream,
                   const Args&... args) {
  static_assert(std::is_same_v<decltype(Kernel), void (*)(Args...)>,
                "launch_kernel: arguments must have the kernel's parameter types");
  static std::atomic<CUfunction> functions[::genesis::kMaxCudaDevices] = {};
  DriverLaunchFn fn = driver_launch_fn();
  if (fn != nullptr && device >= 0 && device < ::genesis::kMaxCudaDevices) {
    CUfunction f = functions[device].load(std::memory_order_acquire);
    if (f == nullptr) {
      cudaFunction_t found = nullptr;
      if (cudaGetFuncBySymbol(&found, reinterpret_cast<const void*>(Kernel)) == cudaSuccess) {
        f = reinterpret_cast<CUfunction>(found);
        functions[device].store(f, std::memory_order_release);
      } else {
        cudaGetLastError();
      }
    }
    if (f != nullptr) {
      void* params[] = {const_cast<void*>(static_cast<const void*>(&args))...};
      // A failure (another context current, say) leaves no runtime error: the runtime launch
      // below then runs or reports it.
      if (fn(f, blocks, 1, 1, threads, 1, 1, 0, reinterpret_cast<CUstream>(stream), params,
             nullptr) == CUDA_SUCCESS)
        return;
    }
  }
  Kernel<<<blocks, threads, 0, stream>>>(args...);
}

}  // namespace genesis::kernels

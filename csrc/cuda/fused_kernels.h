#pragma once
// Generated kernels (genesis.compile's fused groups, csrc/fusion/): a cubin loaded once as a
// context-independent library and launched on a device's current stream. Plain C++.
#include <cstdint>
#include <string>

namespace genesis::cuda {

// The compute capability of `device` as major * 10 + minor (90 for an H100/H200).
int device_architecture(int device);
// The kernel `name` of `cubin` (the cubin loaded once for the process as a library; an opaque
// cudaKernel_t); raises RuntimeError "[compile] ..." when the driver refuses it.
void* fused_kernel(const std::string& cubin, const std::string& name);
// kernel<<<dim3(blocks, blocks_y), threads, 0, stream>>>(args...) on `device`: args as
// cudaLaunchKernel takes them (a pointer to each parameter's bytes); stream is a StreamId
// (cuda/stream.h).
void launch_fused(void* kernel, int device, uintptr_t stream, unsigned blocks, unsigned threads,
                  void** args, unsigned blocks_y = 1);
// The device's multiprocessors (for the grid).
int multiprocessors(int device);

}  // namespace genesis::cuda

#pragma once
// The geometry of a max pool over planes, shared by the CPU loop and the CUDA kernel (cpu/
// max_pool.cpp, kernels/max_pool.cu). Plain C++.
#include <cstdint>

namespace genesis {

// Three spatial dims (a 1-D or 2-D pool has leading dims of size 1).
struct PoolGeometry {
  int64_t planes;         // N * C
  int64_t in[3], out[3];  // plane sizes
  int64_t kernel[3], stride[3], pad[3], dilation[3];
};

}  // namespace genesis

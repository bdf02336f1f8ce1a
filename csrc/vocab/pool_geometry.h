#pragma once
// The geometry of a max pool over planes, shared by the CPU loop and the CUDA kernel (cpu/
// max_pool.cpp, kernels/max_pool.cu). Plain C++.
#include <cstdint>

namespace genesis {

// Three spatial dims (a 1-D or 2-D pool has leading dims of size 1).
// Planes are contiguous ((N, C, *spatial) row-major: plane p's items at p * S + i), or, with
// channels_last, interleaved ((N, *spatial, C): plane n * C + c's items at (n * S + i) * C + c),
// the input's and the results' alike.
struct PoolGeometry {
  int64_t planes;         // N * C
  int64_t in[3], out[3];  // plane sizes
  int64_t kernel[3], stride[3], pad[3], dilation[3];
  int64_t channels = 1;  // C
  bool channels_last = false;
};

}  // namespace genesis

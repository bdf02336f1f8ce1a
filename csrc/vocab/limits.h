#pragma once
// Limits shared by host code and kernels.

namespace genesis {

// The most CUDA devices genesis addresses: per-device tables (streams, pools, cuBLAS handles,
// kernel handles, index error records) have this many slots.
constexpr int kMaxCudaDevices = 64;

}  // namespace genesis

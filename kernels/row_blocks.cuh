#pragma once
// Device pieces the fused normalization kernels share (kernels/normalization.cu for layer norm
// and RMS norm, kernels/group_norm.cu): 16-byte packs of items, block-wide sums that every thread
// receives in the same order, and the deterministic column sums that turn per-block (or
// per-sample) partial rows into a weight's and bias's gradients.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/dtype_traits.cuh"

namespace genesis::kernels::norm_rows {

template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// Items of T in one 16-byte pack.
template <typename T>
constexpr int pack_items() {
  return 16 / sizeof(T) > 0 ? static_cast<int>(16 / sizeof(T)) : 1;
}

inline bool aligned16(const void* p) {
  return p == nullptr || reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

template <typename C>
__device__ __forceinline__ C reciprocal_sqrt(C v) {
  if constexpr (std::is_same_v<C, double>)
    return 1.0 / ::sqrt(v);
  else
    return 1.0f / ::sqrtf(v);
}

// The sums of a and b over the block, returned to every thread.
template <int Threads, typename C>
__device__ __forceinline__ void block_sum2(C& a, C& b) {
#pragma unroll
  for (int delta = 16; delta > 0; delta >>= 1) {
    a += __shfl_xor_sync(0xffffffffu, a, delta);
    b += __shfl_xor_sync(0xffffffffu, b, delta);
  }
  if constexpr (Threads > 32) {
    constexpr int kWarps = Threads / 32;
    __shared__ C part[2][kWarps];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();  // the previous call's readers are done with `part`
    if (lane == 0) {
      part[0][warp] = a;
      part[1][warp] = b;
    }
    __syncthreads();
    a = 0;
    b = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {  // every thread adds the warps' sums in the same order
      a += part[0][w];
      b += part[1][w];
    }
  }
}

constexpr int kColumnWidth = 32;  // columns a block of column_sums takes
constexpr int kColumnDepth = 16;  // and the threads that share each column

// out[c] = the sum over b < blocks of partial[b * cols + c], in the same order for every run.
// Launch with ceil(cols / kColumnWidth) blocks of kColumnWidth * kColumnDepth threads.
template <typename T, typename C>
__global__ void __launch_bounds__(kColumnWidth* kColumnDepth)
    column_sums(const C* __restrict__ partial, int64_t blocks, int64_t cols, T* __restrict__ out) {
  __shared__ C part[kColumnDepth][kColumnWidth + 1];
  int tx = threadIdx.x % kColumnWidth, ty = threadIdx.x / kColumnWidth;
  int64_t c = static_cast<int64_t>(blockIdx.x) * kColumnWidth + tx;
  C s = 0;
  if (c < cols)
    for (int64_t b = ty; b < blocks; b += kColumnDepth) s += partial[b * cols + c];
  part[ty][tx] = s;
  __syncthreads();
  if (ty == 0 && c < cols) {
    C total = 0;
#pragma unroll
    for (int k = 0; k < kColumnDepth; ++k) total += part[k][tx];
    out[c] = convert<T>(total);
  }
}

template <typename T, typename C>
void launch_column_sums(const C* partial, int64_t blocks, int64_t cols, T* out,
                        cudaStream_t stream) {
  unsigned grid = static_cast<unsigned>((cols + kColumnWidth - 1) / kColumnWidth);
  column_sums<T, C><<<grid, kColumnWidth * kColumnDepth, 0, stream>>>(partial, blocks, cols, out);
}

}  // namespace genesis::kernels::norm_rows

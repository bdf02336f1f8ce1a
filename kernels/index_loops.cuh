#pragma once
// Device helpers shared by the index kernels (index.cu, index_reduce.cu): the launch shape and
// the walk of a Geometry (Note [Kernel geometry]).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/geometry.h"
#include "kernels/index.cuh"

namespace genesis::kernels {

constexpr int kThreads = 256;

inline int grid_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65536 * 8 ? (b > 0 ? b : 1) : 65536 * 8);
}

// Byte offsets of element i for N operands.
template <int N>
__device__ __forceinline__ void offsets_of(int64_t i, const Geometry& g, int64_t (&off)[N]) {
  if (g.ndim == 1) {  // the common flat case needs no division
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = i * g.strides[k][0];
    return;
  }
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  if (g.numel <= 0x7fffffff) {  // 32-bit division is several times cheaper than 64-bit
    uint32_t j = static_cast<uint32_t>(i);
#pragma unroll
    for (int d = 0; d < kMaxKernelDims; ++d) {
      if (d == g.ndim) break;
      uint32_t size = static_cast<uint32_t>(g.sizes[d]);
      int64_t idx = j % size;
      j /= size;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += idx * g.strides[k][d];
    }
    return;
  }
#pragma unroll
  for (int d = 0; d < kMaxKernelDims; ++d) {
    if (d == g.ndim) break;
    int64_t idx = i % g.sizes[d];
    i /= g.sizes[d];
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += idx * g.strides[k][d];
  }
}

// Note [Poisoned offsets]: an out-of-range index makes its element's byte offset (the OFFSETS
// path's add_index_offsets) this value, which adding the other index tensors' in-range offsets
// (each under 2^48 bytes) keeps below kPoisonedBelow. Gathers read offset 0 there instead,
// scatters skip the element: with the bounds check deferred (Note [Deferred index errors] in
// core/index_check.h) the scatter runs before anyone knows, and must not write element 0.
constexpr int64_t kPoisonedOffset = -(int64_t{1} << 62);
constexpr int64_t kPoisonedBelow = -(int64_t{1} << 61);
__device__ __forceinline__ bool poisoned(int64_t offset) { return offset < kPoisonedBelow; }

// Whether the record holds an error of this very launch's check (Note [Fused scatter]): a
// checked scatter then writes nothing. An earlier op's pending error does not stop it.
__device__ __forceinline__ bool own_error(const IndexSite& site) {
  return __ldg(&site.record->flag) && __ldg(&site.record->seq) == site.seq;
}

__device__ __forceinline__ bool in_range(int64_t v, int64_t size) { return v >= -size && v < size; }

}  // namespace genesis::kernels

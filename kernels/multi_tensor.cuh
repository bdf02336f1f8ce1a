#pragma once
// What multi-tensor kernels share (Note [Multi-tensor steps] in optimizer_step.cu): a table cuts
// each of its tensors into chunks, block b takes global chunk b, and finds its tensor here.
#include <cstdint>

namespace genesis::kernels {

// V items of T read or written as one access (16 bytes for the widest V).
template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// The tensor that owns `chunk`: tensor t's chunks are [first_chunk[t], first_chunk[t + 1]),
// over `tensors` tensors (a binary search of the prefix sums).
__device__ __forceinline__ int chunk_owner(const int64_t* first_chunk, int tensors, int64_t chunk) {
  int lo = 0, hi = tensors - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (first_chunk[mid] <= chunk)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

}  // namespace genesis::kernels

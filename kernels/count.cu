// bincount without weights: the values' range in one pass (the host reads it for the length),
// then one atomic increment per item, into a block's shared-memory counts when the bins fit
// there (Note [Counting in shared memory]).
#include <cuda_runtime.h>

#include <climits>

#include "kernels/count.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // loads in flight per thread

int64_t grid_for(int64_t n, int sm_count) {
  int64_t want = (n + kThreads * kUnroll - 1) / (kThreads * kUnroll);
  int64_t cap = static_cast<int64_t>(sm_count) * 8;
  return want < cap ? (want > 0 ? want : 1) : cap;
}

__device__ __forceinline__ void block_min_max(long long& lo, long long& hi) {
  for (int d = 16; d > 0; d >>= 1) {
    lo = min(lo, __shfl_down_sync(0xffffffffu, lo, d));
    hi = max(hi, __shfl_down_sync(0xffffffffu, hi, d));
  }
  __shared__ long long warp_lo[kThreads / 32], warp_hi[kThreads / 32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_lo[warp] = lo, warp_hi[warp] = hi;
  __syncthreads();
  if (warp == 0) {
    lo = lane < kThreads / 32 ? warp_lo[lane] : LLONG_MAX;
    hi = lane < kThreads / 32 ? warp_hi[lane] : LLONG_MIN;
    for (int d = 16; d > 0; d >>= 1) {
      lo = min(lo, __shfl_down_sync(0xffffffffu, lo, d));
      hi = max(hi, __shfl_down_sync(0xffffffffu, hi, d));
    }
  }
}

// f(v) for every item of this thread's share of values[0, n): grid-stride, kUnroll loads in
// flight before their items are used.
template <typename T, typename F>
__device__ __forceinline__ void for_each_item(const T* __restrict__ values, int64_t n, F&& f) {
  int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  int64_t i = blockIdx.x * static_cast<int64_t>(kThreads) + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    T v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = values[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) f(v[u]);
  }
  for (; i < n; i += stride) f(values[i]);
}

// Each block's (min, max) to partials[2b], partials[2b + 1].
template <typename T>
__global__ void value_range_kernel(const T* __restrict__ values, int64_t n,
                                   int64_t* __restrict__ partials) {
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  for_each_item(values, n, [&](T v) { lo = min(lo, (long long)v), hi = max(hi, (long long)v); });
  block_min_max(lo, hi);
  if (threadIdx.x == 0) partials[2 * blockIdx.x] = lo, partials[2 * blockIdx.x + 1] = hi;
}

__global__ void range_final_kernel(const int64_t* __restrict__ partials, int64_t blocks,
                                   int64_t* __restrict__ range) {
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  for (int64_t b = threadIdx.x; b < blocks; b += kThreads)
    lo = min(lo, (long long)partials[2 * b]), hi = max(hi, (long long)partials[2 * b + 1]);
  block_min_max(lo, hi);
  if (threadIdx.x == 0) range[0] = lo, range[1] = hi;
}

// Note [Counting in shared memory]: with few bins, many items of a block hit each bin, so the
// block counts in its shared memory (32-bit counters; a block never sees 2^32 items) and adds
// each nonzero count to the global count once; shared-memory atomics are far cheaper than
// global ones that all contend for the same few addresses. With many bins (or few items per
// bin), the items go straight to global atomics, which then rarely collide.
constexpr int64_t kSharedBins = 12288;  // 48 KB of counters: no opt-in needed on any GPU

template <typename T>
__global__ void count_shared_kernel(const T* __restrict__ values, int64_t n,
                                    unsigned long long* __restrict__ counts, int bins) {
  extern __shared__ unsigned int local[];  // bins counters
  for (int b = threadIdx.x; b < bins; b += kThreads) local[b] = 0;
  __syncthreads();
  for_each_item(values, n, [&](T v) {
    if (static_cast<unsigned long long>(v) < static_cast<unsigned long long>(bins))
      atomicAdd(&local[v], 1u);
  });
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += kThreads)
    if (local[b] != 0) atomicAdd(&counts[b], static_cast<unsigned long long>(local[b]));
}

template <typename T>
__global__ void count_global_kernel(const T* __restrict__ values, int64_t n,
                                    unsigned long long* __restrict__ counts, int64_t bins) {
  for_each_item(values, n, [&](T v) {
    if (static_cast<unsigned long long>(v) < static_cast<unsigned long long>(bins))
      atomicAdd(&counts[v], 1ull);
  });
}

template <typename T>
void count_typed(const T* values, int64_t n, int64_t* counts, int64_t bins, int sm_count,
                 cudaStream_t stream) {
  auto* out = reinterpret_cast<unsigned long long*>(counts);
  int64_t blocks = grid_for(n, sm_count);
  // Shared counts pay for their clearing and flushing (bins per block) when the items per block
  // outnumber the bins several times over.
  if (bins <= kSharedBins && n >= 4 * bins * blocks) {
    size_t bytes = static_cast<size_t>(bins) * sizeof(unsigned int);
    count_shared_kernel<T><<<static_cast<unsigned>(blocks), kThreads, bytes, stream>>>(
        values, n, out, static_cast<int>(bins));
  } else {
    count_global_kernel<T>
        <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(values, n, out, bins);
  }
}

}  // namespace

int64_t value_range_blocks(int64_t n, int sm_count) { return grid_for(n, sm_count); }

void launch_value_range(const void* values, bool is_int64, int64_t n, int64_t* partials,
                        int64_t* range, int sm_count, void* stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  int64_t blocks = grid_for(n, sm_count);
  if (is_int64)
    value_range_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        static_cast<const int64_t*>(values), n, partials);
  else
    value_range_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        static_cast<const int32_t*>(values), n, partials);
  range_final_kernel<<<1, kThreads, 0, stream>>>(partials, blocks, range);
}

void launch_count_values(const void* values, bool is_int64, int64_t n, int64_t* counts,
                         int64_t bins, int sm_count, void* stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (is_int64)
    count_typed(static_cast<const int64_t*>(values), n, counts, bins, sm_count, stream);
  else
    count_typed(static_cast<const int32_t*>(values), n, counts, bins, sm_count, stream);
}

}  // namespace genesis::kernels

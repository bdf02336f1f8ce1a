#pragma once
// Device pieces the fused normalization kernels share (kernels/normalization.cu for layer norm
// and RMS norm, kernels/group_norm.cu, and kernels/batch_norm.cu's block sums): 16-byte packs of
// items, block-wide sums that every thread receives in the same order, and the deterministic column
// sums that turn per-block (or per-sample) partial rows into a weight's and bias's gradients.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
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

// f(integral_constant<V>) with the pack of a pass over runs of `run` items of T in `data`: 16
// bytes when every run is whole packs and the data are aligned, one item otherwise.
template <typename T, typename F>
void with_pack(int64_t run, std::initializer_list<const void*> data, const F& f) {
  constexpr int kV = pack_items<T>();
  bool packed = run % kV == 0;
  for (const void* p : data) packed = packed && aligned16(p);
  if (packed)
    f(std::integral_constant<int, kV>{});
  else
    f(std::integral_constant<int, 1>{});
}

template <typename C>
__device__ __forceinline__ C reciprocal_sqrt(C v) {
  if constexpr (std::is_same_v<C, double>)
    return 1.0 / ::sqrt(v);
  else
    return 1.0f / ::sqrtf(v);
}

// The sums of v[0..N) over the block, each returned to every thread (the same order on every
// thread): N sums for one pair of barriers.
template <int Threads, int N, typename C>
__device__ __forceinline__ void block_sums(C (&v)[N]) {
#pragma unroll
  for (int delta = 16; delta > 0; delta >>= 1)
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] += __shfl_xor_sync(0xffffffffu, v[i], delta);
  if constexpr (Threads > 32) {
    constexpr int kWarps = Threads / 32;
    __shared__ C part[N][kWarps];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();  // the previous call's readers are done with `part`
    if (lane == 0)
#pragma unroll
      for (int i = 0; i < N; ++i) part[i][warp] = v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < N; ++i) {
      v[i] = 0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) v[i] += part[i][w];
    }
  }
}

// The sums of a and b over the block, returned to every thread.
template <int Threads, typename C>
__device__ __forceinline__ void block_sum2(C& a, C& b) {
  C v[2] = {a, b};
  block_sums<Threads, 2>(v);
  a = v[0];
  b = v[1];
}

constexpr int kColumnWidth = 32;  // columns a block of the column sums takes
constexpr int kColumnDepth = 16;  // and the threads that share each column
constexpr int kChunkRows = 64;    // the fewest rows worth a block of their own

// For the columns c of this block's kColumnWidth: the sum over rows b < rows of
// partial[b * stride + c] into out[c] (converted to T), in the same order on every run. out may
// be partial's row 0: that row is read only by the threads that write it, before they do.
template <typename T, typename C>
__device__ __forceinline__ void sum_columns(const C* partial, int64_t rows, int64_t stride,
                                            int64_t cols, T* out) {
  __shared__ C part[kColumnDepth][kColumnWidth + 1];
  int tx = threadIdx.x % kColumnWidth, ty = threadIdx.x / kColumnWidth;
  int64_t c = static_cast<int64_t>(blockIdx.x) * kColumnWidth + tx;
  C s = 0;
  if (c < cols)
    for (int64_t b = ty; b < rows; b += kColumnDepth) s += partial[b * stride + c];
  part[ty][tx] = s;
  __syncthreads();
  if (ty == 0 && c < cols) {
    C total = 0;
#pragma unroll
    for (int k = 0; k < kColumnDepth; ++k) total += part[k][tx];
    out[c] = convert<T>(total);
  }
}

// Block (x, y, z) works on set z of the partial rows, set_stride items after set z - 1, whose
// column sums go to outs[z].
template <typename T, typename C>
struct ColumnOutputs {
  T* out[2];
};

template <typename T, typename C>
__global__ void __launch_bounds__(kColumnWidth* kColumnDepth)
    column_sums(const C* partial, int64_t set_stride, int64_t rows, int64_t stride, int64_t cols,
                ColumnOutputs<T, C> outs) {
  sum_columns<T, C>(partial + blockIdx.z * set_stride, rows, stride, cols, outs.out[blockIdx.z]);
}

// The first of two stages when there are many rows: block (x, y, z) sums rows [y * chunk,
// (y + 1) * chunk) of set z's columns into that chunk's first row (which only this block reads).
template <typename C>
__global__ void __launch_bounds__(kColumnWidth* kColumnDepth)
    column_chunk_sums(C* partial, int64_t set_stride, int64_t rows, int64_t cols, int64_t chunk) {
  int64_t first = static_cast<int64_t>(blockIdx.y) * chunk;
  C* set = partial + blockIdx.z * set_stride;
  sum_columns<C, C>(set + first * cols, std::min(chunk, rows - first), cols, cols,
                    set + first * cols);
}

// out[c] = the sum over b < rows of partial[b * cols + c], in the same order for every run (the
// partial rows are overwritten); with second_out, also second_out[c] = the same sum over the
// next `rows` partial rows, in the same launches. Many rows are cut into chunks summed by
// blocks of their own first, so that the GPU's multiprocessors share the reading.
template <typename T, typename C>
void launch_column_sums(C* partial, int64_t rows, int64_t cols, T* out, cudaStream_t stream,
                        T* second_out = nullptr) {
  int64_t column_blocks = (cols + kColumnWidth - 1) / kColumnWidth;
  int64_t chunks = std::min((256 + column_blocks - 1) / column_blocks, rows / kChunkRows);
  int64_t stride = cols, set_stride = rows * cols;
  unsigned sets = second_out ? 2 : 1;
  if (chunks > 1) {
    int64_t chunk = (rows + chunks - 1) / chunks;
    chunks = (rows + chunk - 1) / chunk;
    column_chunk_sums<C>
        <<<dim3(static_cast<unsigned>(column_blocks), static_cast<unsigned>(chunks), sets),
           kColumnWidth * kColumnDepth, 0, stream>>>(partial, set_stride, rows, cols, chunk);
    stride = chunk * cols;
    rows = chunks;
  }
  column_sums<T, C>
      <<<dim3(static_cast<unsigned>(column_blocks), 1, sets), kColumnWidth * kColumnDepth, 0,
         stream>>>(partial, set_stride, rows, stride, cols, {{out, second_out}});
}

}  // namespace genesis::kernels::norm_rows

// Copy kernels. Note [CUDA copies]
//  - contiguous on both sides with a cast: each thread converts 4 consecutive elements;
//  - strided (any layout, after the loop planner merged what it could): per element, the flat
//    index is unravelled over at most kMaxCopyDims dims, in 32-bit arithmetic when it fits;
//  - a transpose (the destination's innermost dim is strided in the source, and the source's
//    innermost is strided in the destination): 32x32 tiles staged in shared memory, so both the
//    reads and the writes are coalesced. Same-dtype copies use item-sized words, whatever the
//    dtype, so they need no per-dtype instantiation.
#include <cuda_runtime.h>

#include "kernels/copy.cuh"
#include "kernels/dtype_traits.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t n, int per_thread = 1) {
  int64_t b = (n + static_cast<int64_t>(kThreads) * per_thread - 1) / (kThreads * per_thread);
  return static_cast<int>(b < (1 << 30) ? (b > 0 ? b : 1) : (1 << 30));
}

template <typename D, typename S>
__global__ void cast_contiguous(D* __restrict__ dst, const S* __restrict__ src, int64_t n) {
  int64_t base = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) * 4;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (base + k < n) dst[base + k] = convert<D>(src[base + k]);
}

// Offsets of element i for both operands; Index is uint32_t when every offset fits.
template <typename Index>
struct Offsets {
  int ndim;
  Index sizes[kMaxCopyDims];
  Index dst[kMaxCopyDims];
  Index src[kMaxCopyDims];
};

template <typename D, typename S, typename Index>
__global__ void copy_strided(char* __restrict__ dst, const char* __restrict__ src, Index n,
                             Offsets<Index> g) {
  Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x;
  Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (; i < n; i += step) {
    Index rest = i, od = 0, os = 0;
#pragma unroll
    for (int d = 0; d < kMaxCopyDims; ++d) {
      if (d == g.ndim) break;
      Index idx = rest % g.sizes[d];
      rest /= g.sizes[d];
      od += idx * g.dst[d];
      os += idx * g.src[d];
    }
    *reinterpret_cast<D*>(dst + od) = convert<D>(*reinterpret_cast<const S*>(src + os));
  }
}

// Strides here may be negative: signed offsets, applied from the base pointers.
template <typename D, typename S>
__global__ void copy_strided_signed(char* __restrict__ dst, const char* __restrict__ src, int64_t n,
                                    Offsets<int64_t> g) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (; i < n; i += step) {
    int64_t rest = i, od = 0, os = 0;
#pragma unroll
    for (int d = 0; d < kMaxCopyDims; ++d) {
      if (d == g.ndim) break;
      int64_t idx = rest % g.sizes[d];
      rest /= g.sizes[d];
      od += idx * g.dst[d];
      os += idx * g.src[d];
    }
    *reinterpret_cast<D*>(dst + od) = convert<D>(*reinterpret_cast<const S*>(src + os));
  }
}

constexpr int kTile = 32;
constexpr int kTileRows = 8;

// dst is [batch][rows][cols] with cols innermost (stride 1 item); src reaches the same element
// with src_row / src_col strides where src_row is the contiguous one. Threads read a tile along
// src's contiguous dim, then write it along dst's.
template <typename W>
__global__ void transpose_tiles(char* __restrict__ dst, const char* __restrict__ src, int64_t rows,
                                int64_t cols, int64_t dst_row, int64_t src_col, int64_t dst_batch,
                                int64_t src_batch) {
  __shared__ W tile[kTile][kTile + 1];
  int64_t b = blockIdx.z;
  const char* s = src + b * src_batch;
  char* d = dst + b * dst_batch;
  int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile,
          col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  // Read: consecutive threads take consecutive rows (contiguous in src).
  for (int j = threadIdx.y; j < kTile; j += kTileRows) {
    int64_t col = col0 + j, row = row0 + threadIdx.x;
    if (row < rows && col < cols)
      tile[j][threadIdx.x] = *reinterpret_cast<const W*>(s + row * sizeof(W) + col * src_col);
  }
  __syncthreads();
  // Write: consecutive threads take consecutive columns (contiguous in dst).
  for (int j = threadIdx.y; j < kTile; j += kTileRows) {
    int64_t row = row0 + j, col = col0 + threadIdx.x;
    if (row < rows && col < cols)
      *reinterpret_cast<W*>(d + row * dst_row + col * sizeof(W)) = tile[threadIdx.x][j];
  }
}

template <typename W>
bool try_transpose(void* dst, const void* src, const CopyGeometry& g, cudaStream_t stream) {
  // Plans of 2 dims (or 3 with an outer batch dim): dst innermost contiguous, src contiguous
  // along dst's second dim.
  int64_t w = sizeof(W);
  if (g.ndim != 2 && g.ndim != 3) return false;
  if (g.dst_strides[0] != w || g.src_strides[1] != w || g.src_strides[0] == w) return false;
  if (g.src_strides[0] <= 0 || g.dst_strides[1] <= 0) return false;
  int64_t cols = g.sizes[0], rows = g.sizes[1], batch = g.ndim == 3 ? g.sizes[2] : 1;
  if (batch > 65535 || (rows + kTile - 1) / kTile > 65535) return false;
  if (g.ndim == 3 && (g.dst_strides[2] < 0 || g.src_strides[2] < 0)) return false;
  dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile),
            static_cast<unsigned>((rows + kTile - 1) / kTile), static_cast<unsigned>(batch));
  transpose_tiles<W><<<grid, dim3(kTile, kTileRows), 0, stream>>>(
      static_cast<char*>(dst), static_cast<const char*>(src), rows, cols, g.dst_strides[1],
      g.src_strides[0], g.ndim == 3 ? g.dst_strides[2] : 0, g.ndim == 3 ? g.src_strides[2] : 0);
  return true;
}

template <typename D, typename S>
void launch_typed(void* dst, const void* src, int64_t numel, const CopyGeometry& g,
                  cudaStream_t stream) {
  if (g.ndim == 1 && g.dst_strides[0] == sizeof(D) && g.src_strides[0] == sizeof(S)) {
    cast_contiguous<D, S><<<blocks_for(numel, 4), kThreads, 0, stream>>>(
        static_cast<D*>(dst), static_cast<const S*>(src), numel);
    return;
  }
  bool non_negative = true;
  int64_t reach_d = 0, reach_s = 0;
  for (int d = 0; d < g.ndim; ++d) {
    non_negative = non_negative && g.dst_strides[d] >= 0 && g.src_strides[d] >= 0;
    reach_d += (g.sizes[d] - 1) * g.dst_strides[d];
    reach_s += (g.sizes[d] - 1) * g.src_strides[d];
  }
  int blocks = blocks_for(numel);
  if (blocks > 65536 * 4) blocks = 65536 * 4;
  if (non_negative && numel < (1ll << 31) && reach_d < (1ll << 31) && reach_s < (1ll << 31)) {
    Offsets<uint32_t> o{g.ndim, {}, {}, {}};
    for (int d = 0; d < g.ndim; ++d) {
      o.sizes[d] = static_cast<uint32_t>(g.sizes[d]);
      o.dst[d] = static_cast<uint32_t>(g.dst_strides[d]);
      o.src[d] = static_cast<uint32_t>(g.src_strides[d]);
    }
    copy_strided<D, S, uint32_t><<<blocks, kThreads, 0, stream>>>(
        static_cast<char*>(dst), static_cast<const char*>(src), static_cast<uint32_t>(numel), o);
    return;
  }
  Offsets<int64_t> o{g.ndim, {}, {}, {}};
  for (int d = 0; d < g.ndim; ++d) {
    o.sizes[d] = g.sizes[d];
    o.dst[d] = g.dst_strides[d];
    o.src[d] = g.src_strides[d];
  }
  copy_strided_signed<D, S><<<blocks, kThreads, 0, stream>>>(
      static_cast<char*>(dst), static_cast<const char*>(src), numel, o);
}

template <typename W>
void launch_same(void* dst, const void* src, int64_t numel, const CopyGeometry& g,
                 cudaStream_t stream) {
  if (try_transpose<W>(dst, src, g, stream)) return;
  launch_typed<W, W>(dst, src, numel, g, stream);
}

}  // namespace

void launch_copy(void* dst, int dst_dtype, const void* src, int src_dtype, int64_t numel,
                 const CopyGeometry& g, void* stream_ptr) {
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  if (numel == 0) return;
  if (dst_dtype == src_dtype) {
    int size = dst_dtype == kBool || dst_dtype == kUInt8 || dst_dtype == kInt8          ? 1
               : dst_dtype == kInt16 || dst_dtype == kFloat16 || dst_dtype == kBFloat16 ? 2
               : dst_dtype == kInt32 || dst_dtype == kFloat32                           ? 4
                                                                                        : 8;
    if (g.ndim == 1 && g.dst_strides[0] == size && g.src_strides[0] == size) {
      cudaMemcpyAsync(dst, src, static_cast<size_t>(numel) * size, cudaMemcpyDeviceToDevice,
                      stream);
      return;
    }
    switch (size) {
      case 1:
        return launch_same<uint8_t>(dst, src, numel, g, stream);
      case 2:
        return launch_same<uint16_t>(dst, src, numel, g, stream);
      case 4:
        return launch_same<uint32_t>(dst, src, numel, g, stream);
      case 8:
        return launch_same<uint64_t>(dst, src, numel, g, stream);
    }
    return;
  }
  dispatch_dtype(dst_dtype, [&](auto d) {
    using D = decltype(d);
    dispatch_dtype(src_dtype, [&](auto s) {
      using S = decltype(s);
      launch_typed<D, S>(dst, src, numel, g, stream);
    });
  });
}

}  // namespace genesis::kernels

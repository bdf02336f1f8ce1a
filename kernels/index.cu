// Advanced-index kernels: offsets from index tensors, gather, scatter, masked fill, and the
// order-preserving mask compaction behind nonzero (Note [Mask compaction] in index.cuh).
#include <cuda_runtime.h>

#include "kernels/index.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

int grid_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65536 * 8 ? (b > 0 ? b : 1) : 65536 * 8);
}

// Byte offsets of element i for N operands.
template <int N>
__device__ __forceinline__ void offsets_of(int64_t i, const Geometry<N>& g, int64_t (&off)[N]) {
  if (g.ndim == 1) {  // the common flat case needs no division
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = i * g.strides[k][0];
    return;
  }
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
#pragma unroll
  for (int d = 0; d < kMaxIndexDims; ++d) {
    if (d == g.ndim) break;
    int64_t idx = i % g.sizes[d];
    i /= g.sizes[d];
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += idx * g.strides[k][d];
  }
}

// An index wrapped into [0, size); one out of range is recorded (the first wins) and read as 0,
// so the kernel using it stays inside the tensor.
__device__ __forceinline__ int64_t checked_index(int64_t v, int64_t size, int64_t dim,
                                                 IndexError* error) {
  if (v < -size || v >= size) {
    if (atomicCAS(&error->flag, 0, 1) == 0) {
      error->value = v;
      error->dim = dim;
      error->size = size;
    }
    return 0;
  }
  return v < 0 ? v + size : v;
}

__global__ void add_index_offsets_kernel(char* offsets, const char* index, int64_t n, Geometry<2> g,
                                         int64_t size, int64_t byte_stride, int64_t dim,
                                         bool assign, IndexError* error) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets_of<2>(i, g, off);
    int64_t v = *reinterpret_cast<const int64_t*>(index + off[1]);
    v = checked_index(v, size, dim, error);
    int64_t* out = reinterpret_cast<int64_t*>(offsets + off[0]);
    *out = (assign ? 0 : *out) + v * byte_stride;
  }
}

template <typename W>
__global__ void gather_kernel(char* out, const char* src, const char* offsets, int64_t n,
                              Geometry<3> g) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    int64_t o = *reinterpret_cast<const int64_t*>(offsets + off[2]);
    *reinterpret_cast<W*>(out + off[0]) = *reinterpret_cast<const W*>(src + off[1] + o);
  }
}

// One integer index (operand 2, int64) scaled by the indexed dim's byte stride, wrapped and
// bounds-checked in place: no offsets tensor is written or read.
template <typename W>
__global__ void gather_index_kernel(char* out, const char* src, const char* index, int64_t n,
                                    Geometry<3> g, int64_t size, int64_t byte_stride, int64_t dim,
                                    IndexError* error) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    int64_t v = *reinterpret_cast<const int64_t*>(index + off[2]);
    v = checked_index(v, size, dim, error);
    *reinterpret_cast<W*>(out + off[0]) =
        *reinterpret_cast<const W*>(src + off[1] + v * byte_stride);
  }
}

template <typename W>
__global__ void scatter_kernel(const char* values, char* dst, const char* offsets, int64_t n,
                               Geometry<3> g) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    int64_t o = *reinterpret_cast<const int64_t*>(offsets + off[2]);
    *reinterpret_cast<W*>(dst + off[1] + o) = *reinterpret_cast<const W*>(values + off[0]);
  }
}

template <typename W>
__global__ void masked_fill_kernel(char* dst, const char* mask, int64_t n, Geometry<2> g, W value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets_of<2>(i, g, off);
    if (*reinterpret_cast<const bool*>(mask + off[1])) *reinterpret_cast<W*>(dst + off[0]) = value;
  }
}

// Flat masked fill, 4 elements a thread: one 4-byte mask load, one vector read-blend-write of
// the destination, so every memory transaction is full width.
template <typename W>
struct alignas(sizeof(W) * 4) Quad {
  W v[4];
};

template <typename W>
__global__ void masked_fill_flat_kernel(W* dst, const uchar4* mask, int64_t quads, W value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < quads;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uchar4 m = mask[i];
    Quad<W> q = reinterpret_cast<Quad<W>*>(dst)[i];
    if (m.x) q.v[0] = value;
    if (m.y) q.v[1] = value;
    if (m.z) q.v[2] = value;
    if (m.w) q.v[3] = value;
    reinterpret_cast<Quad<W>*>(dst)[i] = q;
  }
}

// Mask compaction. Each block owns kChunk consecutive elements.
constexpr int kChunk = 4096;

__device__ int64_t block_sum(int64_t v, int64_t* shared) {
  // Sum over the block; every thread gets the total.
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / 32) ? shared[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) shared[32] = v;
  }
  __syncthreads();
  int64_t total = shared[32];
  __syncthreads();
  return total;
}

__global__ void count_kernel(const bool* mask, int64_t n, int64_t* block_counts) {
  __shared__ int64_t shared[33];
  int64_t begin = static_cast<int64_t>(blockIdx.x) * kChunk;
  int64_t end = begin + kChunk < n ? begin + kChunk : n;
  int64_t c = 0;
  if (reinterpret_cast<uintptr_t>(mask) % 4 == 0) {
    // Four mask bytes per load (bools are 0 or 1, so the byte sum counts them).
    const uchar4* quads = reinterpret_cast<const uchar4*>(mask + begin);
    int64_t nq = (end - begin) / 4;
    for (int64_t q = threadIdx.x; q < nq; q += blockDim.x) {
      uchar4 m = quads[q];
      c += (m.x != 0) + (m.y != 0) + (m.z != 0) + (m.w != 0);
    }
    for (int64_t i = begin + nq * 4 + threadIdx.x; i < end; i += blockDim.x) c += mask[i] ? 1 : 0;
  } else {
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) c += mask[i] ? 1 : 0;
  }
  int64_t total = block_sum(c, shared);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = total;
}

// One block: exclusive scan of the block counts in place; the grand total goes to *total.
__global__ void scan_counts_kernel(int64_t* counts, int64_t blocks, int64_t* total) {
  __shared__ int64_t shared[33];
  int64_t carry = 0;
  for (int64_t base = 0; base < blocks; base += blockDim.x) {
    int64_t i = base + threadIdx.x;
    int64_t v = i < blocks ? counts[i] : 0;
    // Inclusive warp scan, then across warps.
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int64_t x = v;
    for (int o = 1; o < 32; o <<= 1) {
      int64_t y = __shfl_up_sync(0xffffffffu, x, o);
      if (lane >= o) x += y;
    }
    if (lane == 31) shared[warp] = x;
    __syncthreads();
    if (warp == 0) {
      int64_t w = lane < static_cast<int>(blockDim.x / 32) ? shared[lane] : 0;
      for (int o = 1; o < 32; o <<= 1) {
        int64_t y = __shfl_up_sync(0xffffffffu, w, o);
        if (lane >= o) w += y;
      }
      shared[lane] = w;  // inclusive prefix of warp totals
    }
    __syncthreads();
    int64_t warp_prefix = warp > 0 ? shared[warp - 1] : 0;
    int64_t chunk_total = shared[blockDim.x / 32 - 1];
    if (i < blocks) counts[i] = carry + warp_prefix + x - v;
    carry += chunk_total;
    __syncthreads();
  }
  if (threadIdx.x == 0) *total = carry;
}

// Like write_kernel, but copies the selected elements' values (mask and source contiguous).
template <typename W>
__global__ void select_kernel(const bool* mask, const W* src, int64_t n,
                              const int64_t* block_offsets, W* out) {
  __shared__ int64_t warp_totals[32];
  int64_t begin = static_cast<int64_t>(blockIdx.x) * kChunk;
  int64_t end = begin + kChunk < n ? begin + kChunk : n;
  int64_t pos = block_offsets[blockIdx.x];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int64_t base = begin; base < end; base += blockDim.x) {
    int64_t i = base + threadIdx.x;
    bool keep = i < end && mask[i];
    unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if (lane == 0) warp_totals[warp] = __popc(ballot);
    __syncthreads();
    int64_t before = 0, round_total = 0;
    for (int w = 0; w < warps; ++w) {
      if (w < warp) before += warp_totals[w];
      round_total += warp_totals[w];
    }
    if (keep) out[pos + before + __popc(ballot & ((1u << lane) - 1u))] = src[i];
    pos += round_total;
    __syncthreads();
  }
}

__global__ void write_kernel(const bool* mask, int64_t n, const int64_t* block_offsets, int ndim,
                             Geometry<1> shape, int64_t* coords, int64_t count) {
  __shared__ int64_t warp_totals[32];
  int64_t begin = static_cast<int64_t>(blockIdx.x) * kChunk;
  int64_t end = begin + kChunk < n ? begin + kChunk : n;
  int64_t out = block_offsets[blockIdx.x];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  // Rounds of blockDim.x elements; within a round the order is thread order.
  for (int64_t base = begin; base < end; base += blockDim.x) {
    int64_t i = base + threadIdx.x;
    bool keep = i < end && mask[i];
    unsigned ballot = __ballot_sync(0xffffffffu, keep);
    int before_in_warp = __popc(ballot & ((1u << lane) - 1u));
    if (lane == 0) warp_totals[warp] = __popc(ballot);
    __syncthreads();
    int64_t before = 0, round_total = 0;
    for (int w = 0; w < warps; ++w) {
      if (w < warp) before += warp_totals[w];
      round_total += warp_totals[w];
    }
    if (keep) {
      int64_t k = out + before + before_in_warp;
      int64_t rest = i;
      for (int d = ndim - 1; d >= 0; --d) {  // row-major coordinates
        coords[d * count + k] = rest % shape.sizes[d];
        rest /= shape.sizes[d];
      }
    }
    out += round_total;
    __syncthreads();
  }
}

template <template <typename> class K, typename... Args>
void by_itemsize(int itemsize, Args... args) {
  switch (itemsize) {
    case 1:
      return K<uint8_t>::run(args...);
    case 2:
      return K<uint16_t>::run(args...);
    case 4:
      return K<uint32_t>::run(args...);
    case 8:
      return K<unsigned long long>::run(args...);
  }
}

template <typename W>
struct Gather {
  static void run(char* out, const char* src, const char* off, int64_t n, Geometry<3> g,
                  cudaStream_t s) {
    gather_kernel<W><<<grid_for(n), kThreads, 0, s>>>(out, src, off, n, g);
  }
};
template <typename W>
struct GatherIndex {
  static void run(char* out, const char* src, const char* index, int64_t n, Geometry<3> g,
                  int64_t size, int64_t byte_stride, int64_t dim, IndexError* error,
                  cudaStream_t s) {
    gather_index_kernel<W>
        <<<grid_for(n), kThreads, 0, s>>>(out, src, index, n, g, size, byte_stride, dim, error);
  }
};
template <typename W>
struct Select {
  static void run(const bool* mask, const char* src, int64_t n, const int64_t* offsets, char* out,
                  cudaStream_t s) {
    select_kernel<W><<<static_cast<unsigned>(nonzero_blocks(n)), kThreads, 0, s>>>(
        mask, reinterpret_cast<const W*>(src), n, offsets, reinterpret_cast<W*>(out));
  }
};
template <typename W>
struct Scatter {
  static void run(const char* values, char* dst, const char* off, int64_t n, Geometry<3> g,
                  cudaStream_t s) {
    scatter_kernel<W><<<grid_for(n), kThreads, 0, s>>>(values, dst, off, n, g);
  }
};
template <typename W>
struct MaskedFill {
  static void run(char* dst, const char* mask, int64_t n, Geometry<2> g, uint64_t pattern,
                  cudaStream_t s) {
    bool flat = g.ndim == 1 && g.strides[0][0] == sizeof(W) && g.strides[1][0] == 1 &&
                reinterpret_cast<uintptr_t>(dst) % (4 * sizeof(W)) == 0 &&
                reinterpret_cast<uintptr_t>(mask) % 4 == 0;
    if (flat && n >= 4) {
      int64_t quads = n / 4;
      masked_fill_flat_kernel<W><<<grid_for(quads), kThreads, 0, s>>>(
          reinterpret_cast<W*>(dst), reinterpret_cast<const uchar4*>(mask), quads,
          static_cast<W>(pattern));
      int64_t done = quads * 4;
      if (done == n) return;
      dst += done * sizeof(W);
      mask += done;
      n -= done;
    }
    masked_fill_kernel<W>
        <<<grid_for(n), kThreads, 0, s>>>(dst, mask, n, g, static_cast<W>(pattern));
  }
};

}  // namespace

void launch_add_index_offsets(char* offsets, const char* index, int64_t numel, const Geometry<2>& g,
                              int64_t size, int64_t byte_stride, int64_t dim, bool assign,
                              IndexError* error, void* stream) {
  add_index_offsets_kernel<<<grid_for(numel), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      offsets, index, numel, g, size, byte_stride, dim, assign, error);
}

void launch_gather(char* out, const char* src, const char* offsets, int64_t numel,
                   const Geometry<3>& g, int itemsize, void* stream) {
  by_itemsize<Gather>(itemsize, out, src, offsets, numel, g, static_cast<cudaStream_t>(stream));
}

void launch_gather_index(char* out, const char* src, const char* index, int64_t numel,
                         const Geometry<3>& g, int itemsize, int64_t size, int64_t byte_stride,
                         int64_t dim, IndexError* error, void* stream) {
  by_itemsize<GatherIndex>(itemsize, out, src, index, numel, g, size, byte_stride, dim, error,
                           static_cast<cudaStream_t>(stream));
}

void launch_select(const bool* mask, const char* src, int64_t n, const int64_t* block_offsets,
                   char* out, int itemsize, void* stream) {
  by_itemsize<Select>(itemsize, mask, src, n, block_offsets, out,
                      static_cast<cudaStream_t>(stream));
}

void launch_scatter(const char* values, char* dst, const char* offsets, int64_t numel,
                    const Geometry<3>& g, int itemsize, void* stream) {
  by_itemsize<Scatter>(itemsize, values, dst, offsets, numel, g, static_cast<cudaStream_t>(stream));
}

void launch_masked_fill(char* dst, const char* mask, int64_t numel, const Geometry<2>& g,
                        int itemsize, uint64_t pattern, void* stream) {
  by_itemsize<MaskedFill>(itemsize, dst, mask, numel, g, pattern,
                          static_cast<cudaStream_t>(stream));
}

int64_t nonzero_blocks(int64_t n) { return n == 0 ? 1 : (n + kChunk - 1) / kChunk; }

void launch_nonzero_count(const bool* mask, int64_t n, int64_t* block_counts, int64_t* total,
                          void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  int64_t blocks = nonzero_blocks(n);
  count_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(mask, n, block_counts);
  scan_counts_kernel<<<1, 1024, 0, s>>>(block_counts, blocks, total);
}

void launch_nonzero_write(const bool* mask, int64_t n, const int64_t* block_offsets, int ndim,
                          const int64_t* sizes, int64_t* coords, int64_t count, void* stream) {
  Geometry<1> shape;
  shape.ndim = ndim;
  for (int d = 0; d < ndim && d < kMaxIndexDims; ++d) shape.sizes[d] = sizes[d];
  int64_t blocks = nonzero_blocks(n);
  write_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      mask, n, block_offsets, ndim, shape, coords, count);
}

}  // namespace genesis::kernels

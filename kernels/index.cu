// Advanced-index kernels: offsets from index tensors, gather, scatter, masked fill, and the
// order-preserving mask compaction behind nonzero (Note [Mask compaction] in index.cuh).
#include <cuda_runtime.h>

#include "kernels/driver_launch.cuh"
#include "kernels/index.cuh"
#include "kernels/index_loops.cuh"
#include "kernels/index_record.cuh"

namespace genesis::kernels {

namespace {

// An index wrapped into [0, size); one out of range is recorded (record_index_error) and read
// as 0, so the kernel using it stays inside the tensor.
__device__ __forceinline__ int64_t checked_index(int64_t v, int64_t size, int64_t dim,
                                                 IndexSite error) {
  if (v < -size || v >= size) {
    record_index_error(error, v, dim, size);
    return 0;
  }
  return v < 0 ? v + size : v;
}

__global__ void add_index_offsets_kernel(char* offsets, const char* index, int64_t n, Geometry g,
                                         int64_t size, int64_t byte_stride, int64_t dim,
                                         bool assign, IndexSite error) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets_of<2>(i, g, off);
    int64_t v = *reinterpret_cast<const int64_t*>(index + off[1]);
    bool bad = !in_range(v, size);
    v = checked_index(v, size, dim, error);
    int64_t* out = reinterpret_cast<int64_t*>(offsets + off[0]);
    *out = bad ? kPoisonedOffset : (assign ? 0 : *out) + v * byte_stride;
  }
}

template <typename W>
__global__ void gather_kernel(char* out, const char* src, const char* offsets, int64_t n,
                              Geometry g) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    int64_t o = *reinterpret_cast<const int64_t*>(offsets + off[2]);
    if (poisoned(o)) o = 0;
    *reinterpret_cast<W*>(out + off[0]) = *reinterpret_cast<const W*>(src + off[1] + o);
  }
}

// One integer index (operand 2, int64) scaled by the indexed dim's byte stride, wrapped and
// bounds-checked in place: no offsets tensor is written or read.
template <typename W>
__global__ void gather_index_kernel(char* out, const char* src, const char* index, int64_t n,
                                    Geometry g, int64_t size, int64_t byte_stride, int64_t dim,
                                    IndexSite error) {
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

// Note [Row gathers]: x[index] (and index_select along dim 0) of a tensor whose rows are dense
// copies whole rows: each thread moves V-sized pieces (up to 16 bytes) of one row, so the index
// arithmetic is per piece, not per element, and loads and stores are as wide as the rows allow.
template <typename V>
__global__ void gather_rows_kernel(V* out, const char* src, const int64_t* index, int64_t rows,
                                   int64_t row_pieces, int64_t src_row_bytes, int64_t size,
                                   IndexSite error) {
  const int64_t n = rows * row_pieces;
  const bool small = n <= 0x7fffffff;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r, c;
    if (small) {
      uint32_t t32 = static_cast<uint32_t>(t), p32 = static_cast<uint32_t>(row_pieces);
      r = t32 / p32;
      c = t32 - static_cast<uint32_t>(r) * p32;
    } else {
      r = t / row_pieces;
      c = t - r * row_pieces;
    }
    int64_t v = checked_index(index[r], size, 0, error);
    out[t] = reinterpret_cast<const V*>(src + v * src_row_bytes)[c];
  }
}

template <typename W>
__global__ void scatter_kernel(const char* values, char* dst, const char* offsets, int64_t n,
                               Geometry g, IndexSite error) {
  if (own_error(error)) return;  // an index of this op was out of range: write nothing
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    int64_t o = *reinterpret_cast<const int64_t*>(offsets + off[2]);
    if (poisoned(o)) continue;  // an out-of-range index: never written
    *reinterpret_cast<W*>(dst + off[1] + o) = *reinterpret_cast<const W*>(values + off[0]);
  }
}

// Note [Fused scatter]: x[index] = values through one integer index runs two kernels and no
// offsets tensor. check_index_kernel reads every index once and records the first out-of-range
// one (checked_index); scatter_index_kernel then reads the index again and writes the values, but
// only when the record holds no error of this launch (own_error: the check and the scatter share
// a sequence number): it returns at once otherwise, so a setitem that raises IndexError leaves
// the destination untouched (as NumPy does), and the host never waits in between; it learns of
// the error at its next wait, or at once under the immediate check (Note [Deferred index
// errors] in core/index_check.h). Stream order makes the check's record visible to the scatter. The
// check costs one read of the index (about 3% of a 2^24-into-2^28 float scatter on an H200, whose
// time is the random writes'); writing before every index is known to be in range would break that
// guarantee.
__global__ void check_index_kernel(const char* index, int64_t n, Geometry g, int64_t size,
                                   int64_t dim, IndexSite error) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[1];
    offsets_of<1>(i, g, off);
    checked_index(*reinterpret_cast<const int64_t*>(index + off[0]), size, dim, error);
  }
}

// A contiguous, 16-byte aligned index: eight indices a thread (four 16-byte loads), in octets.
__global__ void check_index_flat_kernel(const longlong2* index, int64_t octets, int64_t size,
                                        int64_t dim, IndexSite error) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < octets;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    longlong2 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = index[4 * o + k];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      checked_index(v[k].x, size, dim, error);
      checked_index(v[k].y, size, dim, error);
    }
  }
}

// Operands: values, dst, int64 index. Writes nothing when an index error is recorded.
template <typename W>
__global__ void scatter_index_kernel(const char* values, char* dst, const char* index, int64_t n,
                                     Geometry g, int64_t size, int64_t byte_stride,
                                     IndexSite error) {
  if (own_error(error)) return;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    int64_t v = *reinterpret_cast<const int64_t*>(index + off[2]);
    if (!in_range(v, size)) continue;  // recorded by the check already: never reached
    if (v < 0) v += size;
    *reinterpret_cast<W*>(dst + off[1] + v * byte_stride) =
        *reinterpret_cast<const W*>(values + off[0]);
  }
}

template <typename W>
struct alignas(sizeof(W) * 4) Quad {
  W v[4];
};

// torch.gather along the last dim of dense rows (Note [Gathering along a dim] in
// ops/indexing.cpp): out[r][j] = src[r][index[r][j]], four items a thread from two 16-byte index
// loads and one vector store, so each thread has four independent reads in flight and the row
// arithmetic is once per four items. Rows of index (and out) hold a multiple of 4 items.
template <typename W>
__global__ void gather_last_kernel(Quad<W>* out, const W* src, const longlong2* index,
                                   int64_t quads, int64_t quads_per_row, int64_t src_row,
                                   int64_t size, int64_t dim, IndexSite error) {
  const bool small = quads <= 0x7fffffff;
  for (int64_t q = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; q < quads;
       q += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r =
        small
            ? static_cast<int64_t>(static_cast<uint32_t>(q) / static_cast<uint32_t>(quads_per_row))
            : q / quads_per_row;
    longlong2 a = index[2 * q], b = index[2 * q + 1];
    const W* row = src + r * src_row;
    Quad<W> v;
    v.v[0] = row[checked_index(a.x, size, dim, error)];
    v.v[1] = row[checked_index(a.y, size, dim, error)];
    v.v[2] = row[checked_index(b.x, size, dim, error)];
    v.v[3] = row[checked_index(b.y, size, dim, error)];
    out[q] = v;
  }
}

// The flat case: values contiguous and 4-item aligned, index contiguous and 16-byte aligned,
// dst at `dst_stride` bytes a step (usually 0: the index alone moves through the destination).
// Four elements a thread: two 16-byte index loads, one vector value load, four stores. Rows of
// such (scatter_ along the last dim: values and index dense rows of a multiple of 4 items, dst
// rows `dst_row_stride` bytes apart) take the same loop, `quads_per_row` quads a row (a float16
// scatter_(1) of 16384x1024 took 180 us in the strided loop, 170 us here; PyTorch 173-175 us,
// H200).
template <typename W>
__global__ void scatter_index_flat_kernel(const Quad<W>* values, char* dst, int64_t dst_stride,
                                          const longlong2* index, int64_t quads,
                                          int64_t quads_per_row, int64_t dst_row_stride,
                                          int64_t size, int64_t byte_stride, IndexSite error) {
  if (own_error(error)) return;
  const bool one_row = quads_per_row >= quads, small = quads <= 0x7fffffff;
  for (int64_t q = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; q < quads;
       q += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    longlong2 a = index[2 * q], b = index[2 * q + 1];
    Quad<W> v = values[q];
    int64_t idx[4] = {a.x, a.y, b.x, b.y};
    int64_t r =
        one_row ? 0
        : small
            ? static_cast<int64_t>(static_cast<uint32_t>(q) / static_cast<uint32_t>(quads_per_row))
            : q / quads_per_row;
    char* base = dst + r * dst_row_stride + 4 * (q - r * quads_per_row) * dst_stride;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      int64_t j = idx[k];
      if (!in_range(j, size)) continue;
      if (j < 0) j += size;
      *reinterpret_cast<W*>(base + k * dst_stride + j * byte_stride) = v.v[k];
    }
  }
}

// Note [Staged row scatter]: scatter_ along the last dim of dense rows writes items at random
// places inside each row. A float16 scatter_(1) of 262144x1024 (each row a permutation) moved
// 1.14 TB/s through scatter_index_flat_kernel on an H100, tied with PyTorch: its 2-byte writes
// reach each 32-byte sector a few at a time. When a dst row fits in shared memory and is at most
// twice as long as the index's rows, a block takes a whole row instead: it reads the row into
// shared memory in 16-byte vectors, writes its values there, and stores the row back in 16-byte
// vectors. That moves two more bytes an item (the row's read) and makes every DRAM transaction
// full width. A thread's first quad of index and values is loaded before the row, so the two
// reads overlap. Duplicate indices in a row keep one of their values, which one unspecified,
// as PyTorch documents and as the unstaged kernel does. Like that kernel, it writes nothing when
// the check recorded an index error of this launch (Note [Fused scatter]).
constexpr int kStagedThreads = 256;
constexpr int64_t kStagedRowBytes = 16384;  // the largest dst row staged
constexpr int64_t kStagedMinRows = 512;     // fewer rows: the flat kernel spreads them wider

// Writes a quad of values into the staged row at its four indices.
template <typename W>
__device__ __forceinline__ void put_quad(W* row, longlong2 a, longlong2 b, const Quad<W>& v,
                                         int64_t size) {
  int64_t idx[4] = {a.x, a.y, b.x, b.y};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    int64_t j = idx[k];
    if (!in_range(j, size)) continue;  // recorded by the check already: never reached
    row[j < 0 ? j + size : j] = v.v[k];
  }
}

template <typename W>
__global__ void __launch_bounds__(kStagedThreads)
    scatter_rows_staged_kernel(const Quad<W>* values, char* dst, const longlong2* index,
                               int64_t rows, int64_t quads_per_row, int64_t dst_row_stride,
                               int64_t size, IndexSite error) {
  extern __shared__ int4 stage[];  // one dst row
  if (own_error(error)) return;
  W* row = reinterpret_cast<W*>(stage);
  const int64_t vecs = size * static_cast<int64_t>(sizeof(W)) / 16;
  const int64_t t = threadIdx.x;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const longlong2* irow = index + 2 * r * quads_per_row;
    const Quad<W>* vrow = values + r * quads_per_row;
    int4* drow = reinterpret_cast<int4*>(dst + r * dst_row_stride);
    longlong2 a{}, b{};
    Quad<W> v{};
    const bool first = t < quads_per_row;
    if (first) {
      a = irow[2 * t];
      b = irow[2 * t + 1];
      v = vrow[t];
    }
    for (int64_t k = t; k < vecs; k += blockDim.x) stage[k] = drow[k];
    __syncthreads();
    if (first) put_quad(row, a, b, v, size);
    for (int64_t q = t + blockDim.x; q < quads_per_row; q += blockDim.x)
      put_quad(row, irow[2 * q], irow[2 * q + 1], vrow[q], size);
    __syncthreads();
    for (int64_t k = t; k < vecs; k += blockDim.x) drow[k] = stage[k];
    __syncthreads();  // the row is stored before the next one is staged
  }
}

template <typename W>
__global__ void masked_fill_kernel(char* dst, const char* mask, int64_t n, Geometry g, W value) {
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

// Mask compaction (Note [Mask compaction] in index.cuh). Each tile of kChunk consecutive
// elements is one block of the write kernels; in select_kernel a thread owns kGroups groups of 4
// consecutive elements, group q of thread t being the tile's group q * kSelectThreads + t, so
// every mask load (4 bytes) and value load (4 items) of a warp is contiguous.
constexpr int kSelectThreads = 256;
constexpr int kGroups = 4;
constexpr int kChunk = kSelectThreads * kGroups * 4;
constexpr int kCountTiles = 8;  // tiles counted by one block of count_kernel: a group

// Bit 8k+7 set where byte k of w is nonzero: what a mask byte means, in every kernel here.
__device__ __forceinline__ uint32_t nonzero_bytes(uint32_t w) {
  return (((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u;
}

// nonzero_bytes of mask[i, i + 4) with the elements at or past n read as false; Vec: mask is
// 4-byte aligned (i is a multiple of 4).
template <bool Vec>
__device__ __forceinline__ uint32_t group_bits(const unsigned char* mask, int64_t i, int64_t n) {
  if (Vec && i + 4 <= n) return nonzero_bytes(*reinterpret_cast<const uint32_t*>(mask + i));
  uint32_t bits = 0;
#pragma unroll
  for (int e = 0; e < 4; ++e)
    if (i + e < n && mask[i + e] != 0) bits |= 0x80u << (8 * e);
  return bits;
}

// Inclusive sum over the block (blockDim.x a multiple of 32); *total gets the block's sum.
// `shared` holds 32 values; the block may reuse it once this returns.
template <typename T>
__device__ __forceinline__ T block_inclusive_sum(T v, T* shared, T* total) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    T y = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += y;
  }
  if (lane == 31) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    T w = lane < warps ? shared[lane] : T(0);
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      T y = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) w += y;
    }
    shared[lane] = w;  // inclusive prefix of the warp sums
  }
  __syncthreads();
  if (warp > 0) v += shared[warp - 1];
  *total = shared[warps - 1];
  __syncthreads();
  return v;
}

// The nonzero bytes of mask[i, i + 16) below n; Align: the mask's alignment (16, 4 or 1), i a
// multiple of 16.
template <int Align>
__device__ __forceinline__ int count16(const unsigned char* mask, int64_t i, int64_t n) {
  if (Align == 16 && i + 16 <= n) {
    uint4 w = *reinterpret_cast<const uint4*>(mask + i);
    return __popc(nonzero_bytes(w.x)) + __popc(nonzero_bytes(w.y)) + __popc(nonzero_bytes(w.z)) +
           __popc(nonzero_bytes(w.w));
  }
  int c = 0;
#pragma unroll
  for (int e = 0; e < 4; ++e) c += __popc(group_bits<(Align >= 4)>(mask, i + 4 * e, n));
  return c;
}

// tile_counts[t] = the true elements of tile t, kCountTiles tiles a block (a thread reads 16
// bytes of each); group_counts[b] = their sum for block b.
template <int Align>
__global__ void __launch_bounds__(kSelectThreads)
    count_kernel(const unsigned char* mask, int64_t n, int64_t tiles, int64_t* tile_counts,
                 int64_t* group_counts) {
  __shared__ int warp_counts[kCountTiles][kSelectThreads / 32];
  int64_t first = static_cast<int64_t>(blockIdx.x) * kCountTiles;
  int c[kCountTiles];
#pragma unroll
  for (int k = 0; k < kCountTiles; ++k)
    c[k] = count16<Align>(mask, (first + k) * kChunk + 16 * threadIdx.x, n);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int k = 0; k < kCountTiles; ++k) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) c[k] += __shfl_down_sync(0xffffffffu, c[k], o);
    if (lane == 0) warp_counts[k][warp] = c[k];
  }
  __syncthreads();
  if (warp == 0) {
    int64_t t = 0;
    if (lane < kCountTiles) {
#pragma unroll
      for (int w = 0; w < kSelectThreads / 32; ++w) t += warp_counts[lane][w];
      if (first + lane < tiles) tile_counts[first + lane] = t;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
    if (lane == 0) group_counts[blockIdx.x] = t;
  }
}

// One block of 1024 threads: exclusive scan of the group counts in place; the grand total goes
// to *total. Warp w owns the w-th run of `per_warp` consecutive counts (a multiple of 32), read
// in rounds of 32 coalesced counts: the warps' run sums are scanned across the block, then each
// warp scans its run round by round.
__global__ void __launch_bounds__(1024)
    scan_counts_kernel(int64_t* counts, int64_t groups, int64_t* total) {
  __shared__ int64_t shared[32];
  constexpr int kBatch = 8;  // rounds loaded at once
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  int64_t per_warp = ((groups + warps - 1) / warps + 31) / 32 * 32;
  int64_t begin = warp * per_warp < groups ? warp * per_warp : groups;
  int64_t end = begin + per_warp < groups ? begin + per_warp : groups;
  int64_t sum = 0;
  for (int64_t base = begin; base < end; base += 32 * kBatch) {
    int64_t c[kBatch];
#pragma unroll
    for (int r = 0; r < kBatch; ++r) {
      int64_t i = base + 32 * r + lane;
      c[r] = i < end ? counts[i] : 0;
    }
#pragma unroll
    for (int r = 0; r < kBatch; ++r) sum += c[r];
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  int64_t all;
  // Every lane holds its warp's run sum; lane 0 alone takes part in the block scan.
  int64_t carry = block_inclusive_sum(lane == 0 ? sum : int64_t{0}, shared, &all);
  carry = __shfl_sync(0xffffffffu, carry, 0) - sum;  // the runs before this warp's
  for (int64_t base = begin; base < end; base += 32 * kBatch) {
    int64_t c[kBatch];
#pragma unroll
    for (int r = 0; r < kBatch; ++r) {
      int64_t i = base + 32 * r + lane;
      c[r] = i < end ? counts[i] : 0;
    }
#pragma unroll
    for (int r = 0; r < kBatch; ++r) {
      int64_t x = c[r];  // inclusive scan of this round over the lanes
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        int64_t y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
      }
      int64_t i = base + 32 * r + lane;
      if (i < end) counts[i] = carry + x - c[r];  // each warp rewrites only its own run
      carry += __shfl_sync(0xffffffffu, x, 31);
    }
  }
  if (threadIdx.x == 0) *total = all;
}

// Tile offsets from the scanned group offsets: one thread a group of kCountTiles tiles, in place.
__global__ void expand_offsets_kernel(int64_t* tile_counts, int64_t tiles,
                                      const int64_t* group_offsets, int64_t groups) {
  int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (b >= groups) return;
  int64_t offset = group_offsets[b];
  int64_t c[kCountTiles];
#pragma unroll
  for (int k = 0; k < kCountTiles; ++k) {
    int64_t t = b * kCountTiles + k;
    c[k] = t < tiles ? tile_counts[t] : 0;
  }
#pragma unroll
  for (int k = 0; k < kCountTiles; ++k) {
    int64_t t = b * kCountTiles + k;
    if (t < tiles) tile_counts[t] = offset;
    offset += c[k];
  }
}

// After the counting kernels: out[k] = src[i] for the k-th true mask[i]. One tile
// a block: the block scans its groups' counts (packed: 16 bits per q), stages its selected
// values in shared memory in order, then writes them out contiguously. A group's values are
// read only when one of its mask bytes is set. Vec: mask 4-byte and src 4-item aligned.
// kPositions: the values are the positions i themselves (nonzero of a 1-d mask; src unused).
template <typename W, bool Vec, bool kPositions = false>
__global__ void __launch_bounds__(kSelectThreads)
    select_kernel(const unsigned char* mask, const W* src, int64_t n, const int64_t* block_offsets,
                  W* out) {
  static_assert(kSelectThreads * 4 < (1 << 16), "a group count field holds a tile's share");
  __shared__ W staged[kChunk];
  __shared__ unsigned long long shared[32];
  int64_t base = static_cast<int64_t>(blockIdx.x) * kChunk;
  int64_t out_begin = block_offsets[blockIdx.x];
  uint32_t bits[kGroups];
  unsigned long long packed = 0;
#pragma unroll
  for (int q = 0; q < kGroups; ++q) {
    bits[q] = group_bits<Vec>(mask, base + 4 * (q * kSelectThreads + threadIdx.x), n);
    packed |= static_cast<unsigned long long>(__popc(bits[q])) << (16 * q);
  }
  Quad<W> vals[kGroups];
#pragma unroll
  for (int q = 0; q < kGroups; ++q) {
    int64_t i = base + 4 * (q * kSelectThreads + threadIdx.x);
    if (bits[q] == 0) continue;
    if constexpr (kPositions) {
#pragma unroll
      for (int e = 0; e < 4; ++e) vals[q].v[e] = static_cast<W>(i + e);
    } else if (Vec && i + 4 <= n) {
      vals[q] = *reinterpret_cast<const Quad<W>*>(src + i);
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e)  // a set bit lies below n
        if (bits[q] & (0x80u << (8 * e))) vals[q].v[e] = src[i + e];
    }
  }
  unsigned long long total;
  unsigned long long before = block_inclusive_sum(packed, shared, &total) - packed;
  int count = 0;  // the tile's selected elements in groups q' < q
#pragma unroll
  for (int q = 0; q < kGroups; ++q) {
    int pos = count + static_cast<int>((before >> (16 * q)) & 0xffffu);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (bits[q] & (0x80u << (8 * e))) staged[pos++] = vals[q].v[e];
    count += static_cast<int>((total >> (16 * q)) & 0xffffu);
  }
  __syncthreads();
  for (int j = threadIdx.x; j < count; j += kSelectThreads) out[out_begin + j] = staged[j];
}

__global__ void write_kernel(const bool* mask, int64_t n, const int64_t* block_offsets, int ndim,
                             Geometry shape, int64_t* coords, int64_t count) {
  __shared__ int64_t warp_totals[32];
  int64_t begin = static_cast<int64_t>(blockIdx.x) * kChunk;
  int64_t end = begin + kChunk < n ? begin + kChunk : n;
  int64_t out = block_offsets[blockIdx.x];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  // Rounds of blockDim.x elements; within a round the order is thread order.
  for (int64_t base = begin; base < end; base += blockDim.x) {
    int64_t i = base + threadIdx.x;
    bool keep = i < end && reinterpret_cast<const unsigned char*>(mask)[i] != 0;  // as counted
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
      if (ndim == 1) {
        coords[k] = i;
      } else {
        int64_t rest = i;
        for (int d = ndim - 1; d >= 0; --d) {  // row-major coordinates, one row per element
          coords[k * ndim + d] = rest % shape.sizes[d];
          rest /= shape.sizes[d];
        }
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
  static void run(char* out, const char* src, const char* off, int64_t n, Geometry g,
                  cudaStream_t s) {
    gather_kernel<W><<<grid_for(n), kThreads, 0, s>>>(out, src, off, n, g);
  }
};
template <typename W>
struct GatherIndex {
  // Small gathers are host-bound: the driver launch saves a share of their time.
  static void run(char* out, const char* src, const char* index, int64_t n, Geometry g,
                  int64_t size, int64_t byte_stride, int64_t dim, IndexSite error, cudaStream_t s,
                  int device) {
    launch_kernel<gather_index_kernel<W>>(device, static_cast<unsigned>(grid_for(n)), kThreads, s,
                                          out, src, index, n, g, size, byte_stride, dim, error);
  }
};
template <typename W>
struct Select {
  static void run(const bool* mask, const char* src, int64_t n, const int64_t* offsets, char* out,
                  cudaStream_t s) {
    auto m = reinterpret_cast<const unsigned char*>(mask);
    auto in = reinterpret_cast<const W*>(src);
    auto o = reinterpret_cast<W*>(out);
    auto blocks = static_cast<unsigned>(nonzero_blocks(n));
    bool vec = reinterpret_cast<uintptr_t>(mask) % 4 == 0 &&
               reinterpret_cast<uintptr_t>(src) % (4 * sizeof(W)) == 0;
    if (vec)
      select_kernel<W, true><<<blocks, kSelectThreads, 0, s>>>(m, in, n, offsets, o);
    else
      select_kernel<W, false><<<blocks, kSelectThreads, 0, s>>>(m, in, n, offsets, o);
  }
};
template <typename W>
struct Scatter {
  static void run(const char* values, char* dst, const char* off, int64_t n, Geometry g,
                  IndexSite error, cudaStream_t s) {
    scatter_kernel<W><<<grid_for(n), kThreads, 0, s>>>(values, dst, off, n, g, error);
  }
};
// Whether a rows scatter (values and index dense rows of a multiple of 4 items, ScatterIndex)
// can stage its dst rows (Note [Staged row scatter]): the index moves along dense dst rows that
// are 16-byte aligned, fit kStagedRowBytes, are at most twice the index's rows and do not
// overlap, and there are enough of them.
inline bool staged_rows(const char* dst, const Geometry& g, int64_t size, int64_t byte_stride,
                        int itemsize) {
  int64_t row_bytes = size * itemsize, row_stride = g.strides[1][1];
  return g.strides[1][0] == 0 && byte_stride == itemsize && row_bytes % 16 == 0 &&
         row_bytes <= kStagedRowBytes && size <= 2 * g.sizes[0] && g.sizes[1] >= kStagedMinRows &&
         row_stride % 16 == 0 && row_stride >= row_bytes &&
         reinterpret_cast<uintptr_t>(dst) % 16 == 0;
}

template <typename W>
struct ScatterIndex {
  static void run(const char* values, char* dst, const char* index, int64_t n, Geometry g,
                  int64_t size, int64_t byte_stride, IndexSite error, cudaStream_t s) {
    // Flat: one dim, values dense, index dense (Note [Fused scatter]).
    bool flat = g.ndim == 1 && g.strides[0][0] == sizeof(W) && g.strides[2][0] == 8 &&
                reinterpret_cast<uintptr_t>(values) % (4 * sizeof(W)) == 0 &&
                reinterpret_cast<uintptr_t>(index) % 16 == 0;
    // Rows: two dims, values and index dense rows of a multiple of 4 items.
    bool rows = g.ndim == 2 && g.sizes[0] % 4 == 0 && g.strides[0][0] == sizeof(W) &&
                g.strides[0][1] == g.sizes[0] * static_cast<int64_t>(sizeof(W)) &&
                g.strides[2][0] == 8 && g.strides[2][1] == g.sizes[0] * 8 &&
                reinterpret_cast<uintptr_t>(values) % (4 * sizeof(W)) == 0 &&
                reinterpret_cast<uintptr_t>(index) % 16 == 0;
    if (rows && staged_rows(dst, g, size, byte_stride, sizeof(W))) {
      int64_t row_count = g.sizes[1];  // a block a row (a grid of at most 2^20 loops)
      auto blocks = static_cast<unsigned>(row_count < (1 << 20) ? row_count : (1 << 20));
      scatter_rows_staged_kernel<W><<<blocks, kStagedThreads, size * sizeof(W), s>>>(
          reinterpret_cast<const Quad<W>*>(values), dst, reinterpret_cast<const longlong2*>(index),
          row_count, g.sizes[0] / 4, g.strides[1][1], size, error);
      return;
    }
    if (rows) {
      int64_t quads = n / 4;
      scatter_index_flat_kernel<W><<<grid_for(quads), kThreads, 0, s>>>(
          reinterpret_cast<const Quad<W>*>(values), dst, g.strides[1][0],
          reinterpret_cast<const longlong2*>(index), quads, g.sizes[0] / 4, g.strides[1][1], size,
          byte_stride, error);
      return;
    }
    if (flat && n >= 4) {
      int64_t quads = n / 4, dst_stride = g.strides[1][0];
      scatter_index_flat_kernel<W><<<grid_for(quads), kThreads, 0, s>>>(
          reinterpret_cast<const Quad<W>*>(values), dst, dst_stride,
          reinterpret_cast<const longlong2*>(index), quads, quads, 0, size, byte_stride, error);
      int64_t done = quads * 4;
      if (done == n) return;
      values += done * sizeof(W);
      dst += done * dst_stride;
      index += done * 8;
      n -= done;
    }
    scatter_index_kernel<W>
        <<<grid_for(n), kThreads, 0, s>>>(values, dst, index, n, g, size, byte_stride, error);
  }
};
template <typename W>
struct MaskedFill {
  static void run(char* dst, const char* mask, int64_t n, Geometry g, uint64_t pattern,
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

void launch_add_index_offsets(char* offsets, const char* index, int64_t numel, const Geometry& g,
                              int64_t size, int64_t byte_stride, int64_t dim, bool assign,
                              IndexSite error, void* stream) {
  add_index_offsets_kernel<<<grid_for(numel), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      offsets, index, numel, g, size, byte_stride, dim, assign, error);
}

void launch_gather(char* out, const char* src, const char* offsets, int64_t numel,
                   const Geometry& g, int itemsize, void* stream) {
  by_itemsize<Gather>(itemsize, out, src, offsets, numel, g, static_cast<cudaStream_t>(stream));
}

void launch_gather_index(char* out, const char* src, const char* index, int64_t numel,
                         const Geometry& g, int itemsize, int64_t size, int64_t byte_stride,
                         int64_t dim, IndexSite error, void* stream, int device) {
  by_itemsize<GatherIndex>(itemsize, out, src, index, numel, g, size, byte_stride, dim, error,
                           static_cast<cudaStream_t>(stream), device);
}

bool launch_gather_last(char* out, const char* src, const int64_t* index, int64_t numel,
                        int64_t cols, int64_t src_row_items, int64_t size, int itemsize,
                        int64_t dim, IndexSite error, void* stream) {
  if (cols % 4 != 0 || reinterpret_cast<uintptr_t>(index) % 16 != 0 ||
      reinterpret_cast<uintptr_t>(out) % (4 * itemsize) != 0 ||
      reinterpret_cast<uintptr_t>(src) % itemsize != 0)
    return false;
  auto s = static_cast<cudaStream_t>(stream);
  int64_t quads = numel / 4;
  auto launch = [&](auto item) {
    using W = decltype(item);
    gather_last_kernel<W><<<grid_for(quads), kThreads, 0, s>>>(
        reinterpret_cast<Quad<W>*>(out), reinterpret_cast<const W*>(src),
        reinterpret_cast<const longlong2*>(index), quads, cols / 4, src_row_items, size, dim,
        error);
  };
  switch (itemsize) {
    case 1:
      launch(uint8_t{});
      return true;
    case 2:
      launch(uint16_t{});
      return true;
    case 4:
      launch(uint32_t{});
      return true;
    case 8:
      launch(static_cast<unsigned long long>(0));
      return true;
  }
  return false;
}

void launch_gather_rows(char* out, const char* src, const int64_t* index, int64_t rows,
                        int64_t row_bytes, int64_t src_row_bytes, int64_t size, IndexSite error,
                        void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  auto fits = [&](int width) {
    return row_bytes % width == 0 && src_row_bytes % width == 0 &&
           reinterpret_cast<uintptr_t>(out) % width == 0 &&
           reinterpret_cast<uintptr_t>(src) % width == 0;
  };
  auto launch = [&](auto piece) {
    using V = decltype(piece);
    int64_t pieces = row_bytes / static_cast<int64_t>(sizeof(V));
    gather_rows_kernel<V><<<grid_for(rows * pieces), kThreads, 0, s>>>(
        reinterpret_cast<V*>(out), src, index, rows, pieces, src_row_bytes, size, error);
  };
  if (fits(16))
    launch(uint4{});
  else if (fits(8))
    launch(uint2{});
  else if (fits(4))
    launch(uint32_t{});
  else if (fits(2))
    launch(uint16_t{});
  else
    launch(uint8_t{});
}

void launch_select_positions(const bool* mask, int64_t n, const int64_t* block_offsets,
                             int64_t* out, void* stream) {
  auto m = reinterpret_cast<const unsigned char*>(mask);
  auto o = reinterpret_cast<unsigned long long*>(out);
  auto blocks = static_cast<unsigned>(nonzero_blocks(n));
  auto s = static_cast<cudaStream_t>(stream);
  if (reinterpret_cast<uintptr_t>(mask) % 4 == 0)
    select_kernel<unsigned long long, true, true>
        <<<blocks, kSelectThreads, 0, s>>>(m, nullptr, n, block_offsets, o);
  else
    select_kernel<unsigned long long, false, true>
        <<<blocks, kSelectThreads, 0, s>>>(m, nullptr, n, block_offsets, o);
}

void launch_select(const bool* mask, const char* src, int64_t n, const int64_t* block_offsets,
                   char* out, int itemsize, void* stream) {
  by_itemsize<Select>(itemsize, mask, src, n, block_offsets, out,
                      static_cast<cudaStream_t>(stream));
}

void launch_scatter(const char* values, char* dst, const char* offsets, int64_t numel,
                    const Geometry& g, int itemsize, IndexSite error, void* stream) {
  by_itemsize<Scatter>(itemsize, values, dst, offsets, numel, g, error,
                       static_cast<cudaStream_t>(stream));
}

void launch_check_index(const char* index, int64_t numel, const Geometry& g, int64_t size,
                        int64_t dim, IndexSite error, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (g.ndim == 1 && g.strides[0][0] == 8 && reinterpret_cast<uintptr_t>(index) % 16 == 0 &&
      numel >= 8) {
    int64_t octets = numel / 8;
    check_index_flat_kernel<<<grid_for(octets), kThreads, 0, s>>>(
        reinterpret_cast<const longlong2*>(index), octets, size, dim, error);
    int64_t done = octets * 8;
    if (done == numel) return;
    index += done * 8;
    numel -= done;
  }
  check_index_kernel<<<grid_for(numel), kThreads, 0, s>>>(index, numel, g, size, dim, error);
}

void launch_scatter_index(const char* values, char* dst, const char* index, int64_t numel,
                          const Geometry& g, int itemsize, int64_t size, int64_t byte_stride,
                          IndexSite error, void* stream) {
  by_itemsize<ScatterIndex>(itemsize, values, dst, index, numel, g, size, byte_stride, error,
                            static_cast<cudaStream_t>(stream));
}

void launch_masked_fill(char* dst, const char* mask, int64_t numel, const Geometry& g, int itemsize,
                        uint64_t pattern, void* stream) {
  by_itemsize<MaskedFill>(itemsize, dst, mask, numel, g, pattern,
                          static_cast<cudaStream_t>(stream));
}

int64_t nonzero_blocks(int64_t n) { return n == 0 ? 1 : (n + kChunk - 1) / kChunk; }

namespace {
int64_t count_groups(int64_t tiles) { return (tiles + kCountTiles - 1) / kCountTiles; }
}  // namespace

int64_t nonzero_count_slots(int64_t n) {
  int64_t tiles = nonzero_blocks(n);
  return tiles + 1 + count_groups(tiles);
}

void launch_nonzero_count(const bool* mask, int64_t n, int64_t* slots, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  int64_t tiles = nonzero_blocks(n), groups = count_groups(tiles);
  int64_t* total = slots + tiles;
  int64_t* group_counts = total + 1;
  auto m = reinterpret_cast<const unsigned char*>(mask);
  auto grid = static_cast<unsigned>(groups);
  auto address = reinterpret_cast<uintptr_t>(mask);
  if (address % 16 == 0)
    count_kernel<16><<<grid, kSelectThreads, 0, s>>>(m, n, tiles, slots, group_counts);
  else if (address % 4 == 0)
    count_kernel<4><<<grid, kSelectThreads, 0, s>>>(m, n, tiles, slots, group_counts);
  else
    count_kernel<1><<<grid, kSelectThreads, 0, s>>>(m, n, tiles, slots, group_counts);
  scan_counts_kernel<<<1, 1024, 0, s>>>(group_counts, groups, total);
  expand_offsets_kernel<<<static_cast<unsigned>((groups + kThreads - 1) / kThreads), kThreads, 0,
                          s>>>(slots, tiles, group_counts, groups);
}

void launch_nonzero_write(const bool* mask, int64_t n, const int64_t* block_offsets, int ndim,
                          const int64_t* sizes, int64_t* coords, int64_t count, void* stream) {
  Geometry shape;
  shape.ndim = ndim;
  for (int d = 0; d < ndim && d < kMaxKernelDims; ++d) shape.sizes[d] = sizes[d];
  int64_t blocks = nonzero_blocks(n);
  write_kernel<<<static_cast<unsigned>(blocks), kSelectThreads, 0,
                 static_cast<cudaStream_t>(stream)>>>(mask, n, block_offsets, ndim, shape, coords,
                                                      count);
}

}  // namespace genesis::kernels

// Copy kernels. Note [CUDA copies]
//  - contiguous on both sides with a cast: each thread converts 4 consecutive elements;
//  - strided (any layout, after the loop planner merged what it could): per element, the flat
//    index is unravelled over at most kMaxKernelDims dims, in 32-bit arithmetic when it fits;
//  - a same-dtype transpose (the destination is dense along one dim, the source along another):
//    tiles staged in shared memory, 16-byte vectors on both sides, Note [Tiled transposes] in
//    kernels/transpose_tiles.cuh, or, with a narrow side, Note [Narrow transposes] in
//    kernels/transpose_narrow.cuh. Same-dtype copies use item-sized words, whatever the dtype,
//    so they need no per-dtype instantiation, or wider words where the layout allows
//    (Note [Wide words for same-dtype copies]).
#include <cuda_runtime.h>

#include "kernels/copy.cuh"
#include "kernels/dtype_traits.cuh"
#include "kernels/transpose_narrow.cuh"
#include "kernels/transpose_tiles.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

// Enough blocks to fill the GPU many times over; grid-stride loops cover the rest.
int capped_blocks(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

// Contiguous casts: each thread converts N elements loaded and stored as aligned vectors of up
// to 16 bytes, in a grid-stride loop.
template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};

template <typename D, typename S, int N>
__global__ void cast_vectorized(D* __restrict__ dst, const S* __restrict__ src, int64_t n_vec) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n_vec;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Vec<S, N> in = reinterpret_cast<const Vec<S, N>*>(src)[i];
    Vec<D, N> out;
#pragma unroll
    for (int k = 0; k < N; ++k) out.v[k] = convert<D>(in.v[k]);
    reinterpret_cast<Vec<D, N>*>(dst)[i] = out;
  }
}

template <typename D, typename S>
__global__ void cast_scalar(D* __restrict__ dst, const S* __restrict__ src, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dst[i] = convert<D>(src[i]);
}

// Per-operand offsets over the dims above the innermost one; Index is uint32_t when every
// offset fits, else int64_t (also for negative strides).
template <typename Index>
struct Offsets {
  int ndim;
  Index sizes[kMaxKernelDims];
  Index dst[kMaxKernelDims];
  Index src[kMaxKernelDims];
};

// Consecutive innermost elements per thread: one unravel for four. Wide words take one each
// (Note [Wide words for same-dtype copies]): four 16-byte words a thread would spread a warp's
// load or store over 2 KB, measured slower than the 2-byte items it replaced.
constexpr int kRun = 4;

template <typename D, typename S, typename Index, int Run>
__global__ void copy_strided(char* __restrict__ dst, const char* __restrict__ src, int64_t items,
                             Offsets<Index> g) {
  const Index cols = g.sizes[0];
  const Index runs_per_row = (cols + Run - 1) / Run;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < items;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Index row = static_cast<Index>(w / runs_per_row);
    Index col0 = static_cast<Index>(w % runs_per_row) * Run;
    Index od = 0, os = 0;
#pragma unroll
    for (int d = 1; d < kMaxKernelDims; ++d) {
      if (d >= g.ndim) break;
      Index idx = row % g.sizes[d];
      row /= g.sizes[d];
      od += idx * g.dst[d];
      os += idx * g.src[d];
    }
#pragma unroll
    for (int k = 0; k < Run; ++k) {
      Index col = col0 + k;
      if (col < cols)
        *reinterpret_cast<D*>(dst + od + col * g.dst[0]) =
            convert<D>(*reinterpret_cast<const S*>(src + os + col * g.src[0]));
    }
  }
}

// A batch of transposes in tiles (Note [Tiled transposes]), or false when `g` is none.
template <int E>
bool try_transpose(void* dst, const void* src, const Geometry& g, cudaStream_t stream) {
  TransposeTilesArgs a;
  int64_t batches = 0;
  if (!plan_transpose_tiles(g, E, dst, src, &a, &batches)) return false;
  if (try_narrow_transpose<E>(a, batches, stream)) return true;  // Note [Narrow transposes]
  bool vec_load = tiles_aligned(src, a.src_col, a.src_batch, a.nbatch);
  bool vec_store = tiles_aligned(dst, a.dst_row, a.dst_batch, a.nbatch);
  auto kernel = vec_load
                    ? (vec_store ? transpose_tiles<E, true, true> : transpose_tiles<E, true, false>)
                : vec_store ? transpose_tiles<E, false, true>
                            : transpose_tiles<E, false, false>;
  unsigned tiles =
      static_cast<unsigned>((a.rows + kTileRows - 1) / kTileRows * static_cast<int64_t>(a.tiles_c));
  for (int64_t b0 = 0; b0 < batches; b0 += 65535) {
    a.batch0 = b0;
    unsigned n = static_cast<unsigned>(batches - b0 < 65535 ? batches - b0 : 65535);
    kernel<<<dim3(tiles, n), kTileThreads, 0, stream>>>(a);
  }
  return true;
}

template <typename D, typename S>
void launch_contiguous(void* dst, const void* src, int64_t numel, cudaStream_t stream) {
  constexpr int kBytes = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
  constexpr int N = 16 / kBytes;
  bool aligned = reinterpret_cast<uintptr_t>(dst) % (sizeof(D) * N) == 0 &&
                 reinterpret_cast<uintptr_t>(src) % (sizeof(S) * N) == 0;
  int64_t n_vec = aligned ? numel / N : 0;
  if (n_vec > 0)
    cast_vectorized<D, S, N><<<capped_blocks(n_vec), kThreads, 0, stream>>>(
        static_cast<D*>(dst), static_cast<const S*>(src), n_vec);
  int64_t done = n_vec * N;
  if (done < numel)
    cast_scalar<D, S><<<capped_blocks(numel - done), kThreads, 0, stream>>>(
        static_cast<D*>(dst) + done, static_cast<const S*>(src) + done, numel - done);
}

template <typename D, typename S, typename Index, int Run>
void launch_strided(void* dst, const void* src, int64_t numel, const Geometry& g,
                    cudaStream_t stream) {
  Offsets<Index> o{g.ndim, {}, {}, {}};
  for (int d = 0; d < g.ndim; ++d) {
    o.sizes[d] = static_cast<Index>(g.sizes[d]);
    o.dst[d] = static_cast<Index>(g.strides[0][d]);
    o.src[d] = static_cast<Index>(g.strides[1][d]);
  }
  int64_t rows = numel / g.sizes[0];
  int64_t items = rows * ((g.sizes[0] + Run - 1) / Run);
  copy_strided<D, S, Index, Run><<<capped_blocks(items), kThreads, 0, stream>>>(
      static_cast<char*>(dst), static_cast<const char*>(src), items, o);
}

template <typename D, typename S, int Run = kRun>
void launch_typed(void* dst, const void* src, int64_t numel, const Geometry& g,
                  cudaStream_t stream) {
  if (g.ndim == 1 && g.strides[0][0] == sizeof(D) && g.strides[1][0] == sizeof(S))
    return launch_contiguous<D, S>(dst, src, numel, stream);
  bool non_negative = true;
  int64_t reach_d = 0, reach_s = 0;
  for (int d = 0; d < g.ndim; ++d) {
    non_negative = non_negative && g.strides[0][d] >= 0 && g.strides[1][d] >= 0;
    reach_d += (g.sizes[d] - 1) * g.strides[0][d];
    reach_s += (g.sizes[d] - 1) * g.strides[1][d];
  }
  bool small =
      non_negative && numel < (1ll << 31) && reach_d < (1ll << 31) && reach_s < (1ll << 31);
  if (small)
    launch_strided<D, S, uint32_t, Run>(dst, src, numel, g, stream);
  else
    launch_strided<D, S, int64_t, Run>(dst, src, numel, g, stream);
}

// Note [Wide words for same-dtype copies]
// A same-dtype copy whose innermost dim is dense on both sides copies rows of bytes: a piece of
// cat, a split's gradient, heads moved between [B, T, H, D] and [B, H, T, D]. When every row's
// bytes, every outer stride and both bases are multiples of a wider word, the copy moves words
// of that width instead of items (16 bytes, not 2, for a 16-bit tensor): one load and one store
// where there were eight. The rows stay whole, so the result is the same bytes.

bool widens_to(const Geometry& g, const void* dst, const void* src, int item, int word) {
  if (g.strides[0][0] != item || g.strides[1][0] != item) return false;
  if ((g.sizes[0] * item) % word != 0) return false;
  if (reinterpret_cast<uintptr_t>(dst) % word != 0 || reinterpret_cast<uintptr_t>(src) % word)
    return false;
  for (int d = 1; d < g.ndim; ++d)
    if (g.strides[0][d] % word != 0 || g.strides[1][d] % word != 0) return false;
  return true;
}

template <typename V>
bool try_wide(void* dst, const void* src, int64_t numel, const Geometry& g, int item,
              cudaStream_t stream) {
  constexpr int word = sizeof(V);
  if (word <= item || !widens_to(g, dst, src, item, word)) return false;
  Geometry wide = g;
  wide.sizes[0] = g.sizes[0] * item / word;
  wide.strides[0][0] = wide.strides[1][0] = word;
  wide.numel = numel / g.sizes[0] * wide.sizes[0];
  launch_typed<V, V, 1>(dst, src, wide.numel, wide, stream);
  return true;
}

template <typename W>
void launch_same(void* dst, const void* src, int64_t numel, const Geometry& g,
                 cudaStream_t stream) {
  if (try_transpose<sizeof(W)>(dst, src, g, stream)) return;
  constexpr int item = sizeof(W);
  if (try_wide<uint4>(dst, src, numel, g, item, stream) ||
      try_wide<uint64_t>(dst, src, numel, g, item, stream) ||
      try_wide<uint32_t>(dst, src, numel, g, item, stream))
    return;
  launch_typed<W, W>(dst, src, numel, g, stream);
}

}  // namespace

void launch_copy(void* dst, int dst_dtype, const void* src, int src_dtype, int64_t numel,
                 const Geometry& g, void* stream_ptr) {
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  if (numel == 0) return;
  if (dst_dtype == src_dtype) {
    int size = dst_dtype == kBool || dst_dtype == kUInt8 || dst_dtype == kInt8          ? 1
               : dst_dtype == kInt16 || dst_dtype == kFloat16 || dst_dtype == kBFloat16 ? 2
               : dst_dtype == kInt32 || dst_dtype == kFloat32                           ? 4
                                                                                        : 8;
    if (g.ndim == 1 && g.strides[0][0] == size && g.strides[1][0] == size) {
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

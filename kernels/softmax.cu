// Note [Fused softmax]: softmax over contiguous rows with no temporaries. A row of up to 1024
// items is held in a warp's registers: read once, a warp max, a warp sum of exp(x - m), written
// as exp(x - m) / s, or (x - m) - log(s) for log_softmax. A longer row takes a block and two
// passes: the first keeps a running maximum m and the sum s of exp(x - m), rescaling s when m
// grows (the "online" softmax), and threads, then warps, merge their (m, s) pairs; the second
// reads the row again, usually from L2, and writes. The composite path (max, subtract, exp,
// sum, divide) reads and writes the whole tensor five times. Infinities and NaNs come out as
// that composite gives them: a row holding +inf or NaN is all NaN, a row of -inf is all NaN.
#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "kernels/dtype_traits.cuh"
#include "kernels/online_softmax.cuh"
#include "kernels/softmax.cuh"

namespace genesis::kernels {

namespace {

constexpr int kWarpRowsThreads = 256;  // 8 rows per block, a warp each
constexpr int kBlockRowThreads = 512;  // one long row per block

// exp of x <= 0 for logsumexp's sum (Note [Fused row logsumexp]): in float, the hardware's ex2 of
// x * log2(e), a few float32 ulps off, where expf is a longer instruction sequence.
template <typename C>
__device__ __forceinline__ C sum_exp_term(C x) {
  if constexpr (std::is_same_v<C, float>) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
    return y;
  } else {
    return exp_of(x);
  }
}

// 16-byte packs of items, for rows whose length and start allow them.
template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

template <typename T, int V, typename C>
__device__ __forceinline__ void accumulate(const T* row, int64_t cols, int start, int step,
                                           MaxSum<C>& acc) {
  if constexpr (V > 1) {
    const auto* packs = reinterpret_cast<const Pack<T, V>*>(row);
    for (int64_t p = start; p < cols / V; p += step) {
      Pack<T, V> pk = packs[p];
#pragma unroll
      for (int k = 0; k < V; ++k) acc.add(convert<C>(pk.v[k]));
    }
  } else {
    for (int64_t i = start; i < cols; i += step) acc.add(convert<C>(row[i]));
  }
}

template <typename T, int V, typename C, bool Log>
__device__ __forceinline__ void write_row(const T* row, T* out, int64_t cols, int start, int step,
                                          C m, C s) {
  C log_s = Log ? log_of(s) : C(0);
  auto value = [&](C x) -> T {
    if constexpr (Log)
      return convert<T>((x - m) - log_s);
    else
      return convert<T>(exp_of(x - m) / s);
  };
  if constexpr (V > 1) {
    const auto* packs = reinterpret_cast<const Pack<T, V>*>(row);
    auto* out_packs = reinterpret_cast<Pack<T, V>*>(out);
    for (int64_t p = start; p < cols / V; p += step) {
      Pack<T, V> pk = packs[p], o;
#pragma unroll
      for (int k = 0; k < V; ++k) o.v[k] = value(convert<C>(pk.v[k]));
      out_packs[p] = o;
    }
  } else {
    for (int64_t i = start; i < cols; i += step) out[i] = value(convert<C>(row[i]));
  }
}

// Short rows: Width lanes each (a warp, or a part of one for rows of up to 32 packs), held in
// registers (Items per lane, loaded V at a time), so each row is read once and the max and the
// sum are plain shuffle reductions.
template <int Width, typename C>
__device__ __forceinline__ C lanes_max(C v) {
#pragma unroll
  for (int delta = Width / 2; delta > 0; delta >>= 1)
    v = fmax(v, __shfl_xor_sync(0xffffffffu, v, delta, Width));
  return v;
}

template <int Width, typename C>
__device__ __forceinline__ C lanes_sum(C v) {
#pragma unroll
  for (int delta = Width / 2; delta > 0; delta >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, delta, Width);
  return v;
}

// Reduce: out[r] = logsumexp of row r instead (Note [Fused row logsumexp]).
template <typename T, int V, int Items, int Width, typename C, bool Log, bool Reduce>
__global__ void softmax_warp_rows(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                                  int64_t cols) {
  constexpr int kPacks = Items / V, kRowsPerWarp = 32 / Width;
  int64_t first_row =
      (blockIdx.x * static_cast<int64_t>(kWarpRowsThreads / 32) + threadIdx.x / 32) * kRowsPerWarp;
  if (first_row >= rows) return;  // whole warps leave together: the shuffles need every lane
  int lane = threadIdx.x % Width;
  int64_t r = first_row + (threadIdx.x % 32) / Width;
  bool live = r < rows;
  const T* row = in + r * cols;
  C x[Items];
  bool has[kPacks];
  // fmax ignores NaN, so m is the largest number; a NaN still reaches the sum through exp.
  C m = -INFINITY;
#pragma unroll
  for (int k = 0; k < kPacks; ++k) {
    int64_t first = (static_cast<int64_t>(k) * Width + lane) * V;
    has[k] = live && first < cols;
    if (has[k]) {
      Pack<T, V> pk = *reinterpret_cast<const Pack<T, V>*>(row + first);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        x[k * V + j] = convert<C>(pk.v[j]);
        m = fmax(m, x[k * V + j]);
      }
    }
  }
  m = lanes_max<Width>(m);
  if constexpr (Reduce) m = isinf(m) ? C(0) : m;  // an infinite max is not subtracted
  C s = 0;
#pragma unroll
  for (int k = 0; k < kPacks; ++k)
    if (has[k]) {
#pragma unroll
      for (int j = 0; j < V; ++j) {  // all -inf: NaN, as wanted
        C e = x[k * V + j] - m;
        s += Reduce ? sum_exp_term(e) : exp_of(e);
      }
    }
  s = lanes_sum<Width>(s);
  if constexpr (Reduce) {
    if (live && lane == 0) out[r] = convert<T>(log_of(s) + m);
    return;
  }
  C log_s = Log ? log_of(s) : C(0);
#pragma unroll
  for (int k = 0; k < kPacks; ++k) {
    if (!has[k]) continue;
    Pack<T, V> o;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      C v = x[k * V + j];
      o.v[j] = Log ? convert<T>((v - m) - log_s) : convert<T>(exp_of(v - m) / s);
    }
    *reinterpret_cast<Pack<T, V>*>(out + r * cols + (static_cast<int64_t>(k) * Width + lane) * V) =
        o;
  }
}

// The (m, s) pairs of a whole block merged, returned to every thread.
template <typename C>
__device__ __forceinline__ MaxSum<C> block_merge(MaxSum<C> acc) {
  __shared__ C part_m[kBlockRowThreads / 32], part_s[kBlockRowThreads / 32];
  __shared__ MaxSum<C> total;
  acc = warp_merge(acc);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    part_m[warp] = acc.m;
    part_s[warp] = acc.s;
  }
  __syncthreads();
  if (warp == 0) {
    MaxSum<C> all;
    if (lane < kBlockRowThreads / 32) all.merge(part_m[lane], part_s[lane]);
    all = warp_merge(all);
    if (lane == 0) total = all;
  }
  __syncthreads();
  return total;
}

// Long rows: a block each (blockIdx.x is the row).
template <typename T, int V, typename C, bool Log>
__global__ void softmax_block_rows(const T* __restrict__ in, T* __restrict__ out, int64_t cols) {
  const T* row = in + blockIdx.x * cols;
  MaxSum<C> acc;
  accumulate<T, V>(row, cols, threadIdx.x, kBlockRowThreads, acc);
  acc = block_merge(acc);
  write_row<T, V, C, Log>(row, out + blockIdx.x * cols, cols, threadIdx.x, kBlockRowThreads, acc.m,
                          acc.s);
}

// Few long rows: each row cut into gridDim.y chunks of chunk_len items (a multiple of V), a
// block each, so the whole GPU works. The first kernel leaves each chunk's (m, s) in `partial`;
// the second merges a row's pairs and writes its chunk.
template <typename T, int V, typename C>
__global__ void softmax_chunk_stats(const T* __restrict__ in, int64_t cols, int64_t chunk_len,
                                    C* __restrict__ partial) {
  int64_t begin = blockIdx.y * chunk_len;
  int64_t len = cols - begin < chunk_len ? cols - begin : chunk_len;
  MaxSum<C> acc;
  accumulate<T, V>(in + blockIdx.x * cols + begin, len, threadIdx.x, kBlockRowThreads, acc);
  acc = block_merge(acc);
  if (threadIdx.x == 0) {
    C* p = partial + 2 * (static_cast<int64_t>(blockIdx.x) * gridDim.y + blockIdx.y);
    p[0] = acc.m;
    p[1] = acc.s;
  }
}

template <typename T, int V, typename C, bool Log>
__global__ void softmax_chunk_write(const T* __restrict__ in, T* __restrict__ out, int64_t cols,
                                    int64_t chunk_len, const C* __restrict__ partial) {
  __shared__ MaxSum<C> total;
  if (threadIdx.x < 32) {
    MaxSum<C> acc;
    const C* p = partial + 2 * static_cast<int64_t>(blockIdx.x) * gridDim.y;
    for (unsigned c = threadIdx.x; c < gridDim.y; c += 32) acc.merge(p[2 * c], p[2 * c + 1]);
    acc = warp_merge(acc);
    if (threadIdx.x == 0) total = acc;
  }
  __syncthreads();
  int64_t begin = blockIdx.y * chunk_len;
  int64_t len = cols - begin < chunk_len ? cols - begin : chunk_len;
  int64_t at = blockIdx.x * cols + begin;
  write_row<T, V, C, Log>(in + at, out + at, len, threadIdx.x, kBlockRowThreads, total.m, total.s);
}

template <typename T, int V, int Items, int Width, bool Log, bool Reduce>
void launch_warp_rows(const T* in, T* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  int64_t per_block = kWarpRowsThreads / Width;
  int64_t blocks = (rows + per_block - 1) / per_block;
  softmax_warp_rows<T, V, Items, Width, C, Log, Reduce>
      <<<static_cast<unsigned>(blocks), kWarpRowsThreads, 0, stream>>>(in, out, rows, cols);
}

// Rows of up to kSoftmaxWarpRowMax items, in a warp's registers. Rows of up to 32 packs: a pack
// per lane, as few lanes a row as cover it. Longer ones: a warp, Items (a power of two) a lane,
// loaded in packs of min(V, Items) so that every lane has work.
template <typename T, int V, bool Log, bool Reduce>
void launch_warp_chain(const T* in, T* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  int64_t packs = (cols + V - 1) / V;
  if (packs <= 1) return launch_warp_rows<T, V, V, 1, Log, Reduce>(in, out, rows, cols, stream);
  if (packs <= 2) return launch_warp_rows<T, V, V, 2, Log, Reduce>(in, out, rows, cols, stream);
  if (packs <= 4) return launch_warp_rows<T, V, V, 4, Log, Reduce>(in, out, rows, cols, stream);
  if (packs <= 8) return launch_warp_rows<T, V, V, 8, Log, Reduce>(in, out, rows, cols, stream);
  if (packs <= 16) return launch_warp_rows<T, V, V, 16, Log, Reduce>(in, out, rows, cols, stream);
  if (packs <= 32) return launch_warp_rows<T, V, V, 32, Log, Reduce>(in, out, rows, cols, stream);
  constexpr int V2 = V < 2 ? V : 2, V4 = V < 4 ? V : 4, V8 = V < 8 ? V : 8;
  if (cols <= 64) return launch_warp_rows<T, V2, 2, 32, Log, Reduce>(in, out, rows, cols, stream);
  if (cols <= 128) return launch_warp_rows<T, V4, 4, 32, Log, Reduce>(in, out, rows, cols, stream);
  if (cols <= 256) return launch_warp_rows<T, V8, 8, 32, Log, Reduce>(in, out, rows, cols, stream);
  if (cols <= 512) return launch_warp_rows<T, V, 16, 32, Log, Reduce>(in, out, rows, cols, stream);
  launch_warp_rows<T, V, 32, 32, Log, Reduce>(in, out, rows, cols, stream);
}

// V: items per load (1 unless every row is a whole number of aligned 16-byte packs).
template <typename T, int V, bool Log>
void launch_typed(const T* in, T* out, int64_t rows, int64_t cols, int64_t chunks, void* workspace,
                  cudaStream_t stream) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  if (cols <= kSoftmaxWarpRowMax)
    return launch_warp_chain<T, V, Log, false>(in, out, rows, cols, stream);
  if (chunks <= 1) {
    softmax_block_rows<T, V, C, Log>
        <<<static_cast<unsigned>(rows), kBlockRowThreads, 0, stream>>>(in, out, cols);
    return;
  }
  // Chunks of whole packs, as even as that allows.
  int64_t chunk_len = ((cols + chunks - 1) / chunks + V - 1) / V * V;
  dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((cols + chunk_len - 1) / chunk_len));
  C* partial = static_cast<C*>(workspace);
  softmax_chunk_stats<T, V, C><<<grid, kBlockRowThreads, 0, stream>>>(in, cols, chunk_len, partial);
  softmax_chunk_write<T, V, C, Log>
      <<<grid, kBlockRowThreads, 0, stream>>>(in, out, cols, chunk_len, partial);
}

template <typename T, bool Log>
void launch_packed(const void* in, void* out, int64_t rows, int64_t cols, int64_t chunks,
                   void* workspace, cudaStream_t stream) {
  constexpr int V = 16 / sizeof(T);
  auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const T* x = static_cast<const T*>(in);
  T* y = static_cast<T*>(out);
  if (cols % V == 0 && aligned(in) && aligned(out))  // every row starts on a pack
    launch_typed<T, V, Log>(x, y, rows, cols, chunks, workspace, stream);
  else
    launch_typed<T, 1, Log>(x, y, rows, cols, chunks, workspace, stream);
}

}  // namespace

// Note [Fused row logsumexp]: logsumexp over rows of up to kSoftmaxWarpRowMax items is the
// fused softmax's first half (Note [Fused softmax]): each row read once into a warp's registers,
// its max m, and log(sum(exp(x - m))) + m written per row. The exponentials (computed in float
// for every dtype but float64) are the hardware's ex2.approx of (x - m) log2(e) rather than
// expf: each term is off by a few float32 ulps (the largest terms, x near m, by the least), so
// the sum is, and log(s) moves by a few 1e-7 at most, below the float32 rounding of the result
// m + log(s) in all but rows whose result is near 0 (there within 1e-6 absolute). expf's longer
// instruction sequence, not memory, bounded the 16-bit rows (probe, H100: 16384x1024 float16
// 11.2 -> 8.6 us) and cost float32 rows 3% on an H200 (19.3 -> 18.7 us). float64 keeps exp. As in
// the composite (Note [Fused logsumexp] in ops/reduce_composite.cpp) an infinite max is not
// subtracted, so a row of -inf gives -inf, one holding +inf gives +inf, and a NaN gives NaN.
void launch_logsumexp_rows(int dtype, const void* in, void* out, int64_t rows, int64_t cols,
                           void* stream_ptr) {
  if (rows == 0 || cols == 0 || cols > kSoftmaxWarpRowMax) return;
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    constexpr int V = 16 / sizeof(T);
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    if (cols % V == 0 && reinterpret_cast<uintptr_t>(in) % 16 == 0)  // every row on a pack
      launch_warp_chain<T, V, false, true>(x, y, rows, cols, stream);
    else
      launch_warp_chain<T, 1, false, true>(x, y, rows, cols, stream);
  };
  switch (dtype) {
    case kFloat16:
      return run(__half{});
    case kBFloat16:
      return run(__nv_bfloat16{});
    case kFloat32:
      return run(float{});
    case kFloat64:
      return run(double{});
    default:
      return;
  }
}

void launch_softmax_rows(int dtype, const void* in, void* out, int64_t rows, int64_t cols, bool log,
                         int64_t chunks, void* workspace, void* stream_ptr) {
  if (rows == 0 || cols == 0) return;
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    if (log)
      launch_packed<T, true>(in, out, rows, cols, chunks, workspace, stream);
    else
      launch_packed<T, false>(in, out, rows, cols, chunks, workspace, stream);
  };
  switch (dtype) {
    case kFloat16:
      return run(__half{});
    case kBFloat16:
      return run(__nv_bfloat16{});
    case kFloat32:
      return run(float{});
    case kFloat64:
      return run(double{});
    default:
      return;  // the caller sends floating point types only
  }
}

}  // namespace genesis::kernels

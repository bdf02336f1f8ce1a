// Note [Fused row normalization kernels]: layer norm and RMS norm over contiguous rows, one
// block a row. When a row is a whole number of aligned 16-byte packs and fits the block (at most
// 4 packs a thread of up to 1024 threads: 16k float32 items, 32k 16-bit ones), each thread keeps
// its packs in registers as loaded: the row is read once, its mean is a block sum, its variance a
// second block sum of the squared deviations (two passes over registers, exact as the composite),
// and the result is written from the same registers. Other rows take a loop kernel that reads the
// row from memory in each pass (the later passes mostly from L1/L2).
//
// Backward runs as many blocks as the GPU holds at once, each taking rows blockIdx.x,
// blockIdx.x + gridDim.x, ...: dx of a row needs two block sums (of g*xhat and of g, g = dy*w),
// and the weight and bias gradients, column sums over all rows of dy*xhat and dy, are kept per
// thread for the columns it owns (the same in every row) and left as one partial row per block;
// a second kernel adds the blocks' partial rows in a fixed order, so the gradients are
// deterministic. Its block gives each thread one pack while the row has at most 1024 packs: the
// column sums then take 2 * (items a pack) registers, and more rows are in flight on each
// multiprocessor. Measured on an H200 (65536 x 768, kernel plus column sums): float32 193.7 us
// with 64 threads of up to 4 packs (96 registers, 10 blocks a multiprocessor) against 162.8 us
// with 192 threads of one; bfloat16 170.4 us (32 threads, 185 registers) against 115.9 us (96
// threads of one). Keeping the next row's packs loaded ahead did not pay (158.7 and 134.5 us).
// 16-bit rows of one pack a thread take 4 rows a block iteration (their loads in flight together,
// one pair of barriers for the 8 block sums): on an H100, bfloat16 65536 x 768, 111.1 us against
// 124.3 for one row (5 blocks a multiprocessor instead of 10; 2 rows: 128.8). Both gradients'
// column sums share their launches (two kernels instead of four).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "kernels/dtype_traits.cuh"
#include "kernels/normalization.cuh"
#include "kernels/row_blocks.cuh"

namespace genesis::kernels {

namespace {

using norm_rows::aligned16;
using norm_rows::block_sum2;
using norm_rows::reciprocal_sqrt;
template <typename T, int V>
using RowPack = norm_rows::Pack<T, V>;

constexpr int kPacks = 4;          // the most packs a thread holds in the forward register kernel
constexpr int kLoopThreads = 512;  // the loop kernels' block
constexpr int kWarpRows = 8;       // rows a block in the forward kernel of 32-thread rows

// ---- forward -----------------------------------------------------------------------------

// Packs are kept as loaded (16 bytes each) and converted where used, and a thread holds 3 packs
// where that is enough: for bfloat16 rows of 768, 94 registers instead of 120, and 62.6 us
// instead of 77.0 for 65536 rows on an H200 (float32: 103.1 against 105.3).
//
// A row of one warp (Threads == 32) needs no barrier, so a block holds kWarpRows such rows, a
// warp each (its sums are warp shuffles): 32-thread blocks cap a multiprocessor at 32 resident
// warps. bfloat16 65536 x 768 on an H100: 73.5 us against 81.3 for a warp a block.
//
// Full: the row is exactly Threads * Packs packs (GPT-2's 768 at 3 packs of 32 threads) and the
// norm has its weight (and, for layer norm, its bias), so no pack needs a bounds test and no
// item a test of w or b. On an H100, bfloat16 65536 x 768 (tools/norm_probe.cu, session 39):
// 88.7 us with the tests, 84.2 without the bounds tests alone, 75.3 for the probe's copy without
// either (a copy takes 72.9).
template <typename T, typename C, int Threads, int Packs, bool Rms, bool Full>
__global__ void __launch_bounds__(Threads == 32 ? 32 * kWarpRows : Threads)
    norm_forward_regs(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
                      T* __restrict__ y, C* __restrict__ mean, C* __restrict__ rstd, int64_t rows,
                      int64_t cols, C eps) {
  constexpr int V = 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1;
  constexpr int kRowsABlock = Threads == 32 ? kWarpRows : 1;
  using P = RowPack<T, V>;
  const int64_t packs = Full ? int64_t{Threads} * Packs : cols / V;
  const int t = static_cast<int>(threadIdx.x) % Threads;  // the thread's place in its row
  const bool has_w = Full || w != nullptr, has_b = Full ? !Rms : b != nullptr;
  P pw[Packs], pb[Packs];
#pragma unroll
  for (int k = 0; k < Packs; ++k) {
    int64_t p = t + static_cast<int64_t>(k) * Threads;
    if (Full || p < packs) {
      if (has_w) pw[k] = reinterpret_cast<const P*>(w)[p];
      if (has_b) pb[k] = reinterpret_cast<const P*>(b)[p];
    }
  }
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * kRowsABlock + threadIdx.x / Threads; r < rows;
       r += static_cast<int64_t>(gridDim.x) * kRowsABlock) {
    const P* row = reinterpret_cast<const P*>(x + r * cols);
    P px[Packs];
    C s = 0, unused = 0;
#pragma unroll
    for (int k = 0; k < Packs; ++k) {
      int64_t p = t + static_cast<int64_t>(k) * Threads;
      if (Full || p < packs) {
        px[k] = row[p];
#pragma unroll
        for (int j = 0; j < V; ++j) {
          C v = convert<C>(px[k].v[j]);
          s += Rms ? v * v : v;
        }
      }
    }
    block_sum2<Threads>(s, unused);
    C mu = Rms ? C(0) : s / C(cols), var = s / C(cols);
    if constexpr (!Rms) {
      C d2 = 0;
#pragma unroll
      for (int k = 0; k < Packs; ++k) {
        int64_t p = t + static_cast<int64_t>(k) * Threads;
        if (Full || p < packs) {
#pragma unroll
          for (int j = 0; j < V; ++j) {
            C d = convert<C>(px[k].v[j]) - mu;
            d2 += d * d;
          }
        }
      }
      unused = 0;
      block_sum2<Threads>(d2, unused);
      var = d2 / C(cols);
    }
    C r_std = reciprocal_sqrt(var + eps);
    if (t == 0) {
      if (!Rms) mean[r] = mu;
      rstd[r] = r_std;
    }
    P* out = reinterpret_cast<P*>(y + r * cols);
#pragma unroll
    for (int k = 0; k < Packs; ++k) {
      int64_t p = t + static_cast<int64_t>(k) * Threads;
      if (Full || p < packs) {
        P o;
#pragma unroll
        for (int j = 0; j < V; ++j) {
          C v = (convert<C>(px[k].v[j]) - mu) * r_std;
          if (has_w) v *= convert<C>(pw[k].v[j]);
          if (has_b) v += convert<C>(pb[k].v[j]);
          o.v[j] = convert<T>(v);
        }
        out[p] = o;
      }
    }
  }
}

template <typename T, typename C, bool Rms>
__global__ void __launch_bounds__(kLoopThreads)
    norm_forward_loop(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
                      T* __restrict__ y, C* __restrict__ mean, C* __restrict__ rstd, int64_t rows,
                      int64_t cols, C eps) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * cols;
    C s = 0, unused = 0;
    for (int64_t i = threadIdx.x; i < cols; i += kLoopThreads) {
      C v = convert<C>(row[i]);
      s += Rms ? v * v : v;
    }
    block_sum2<kLoopThreads>(s, unused);
    C mu = Rms ? C(0) : s / C(cols), var = s / C(cols);
    if constexpr (!Rms) {
      C d2 = 0;
      for (int64_t i = threadIdx.x; i < cols; i += kLoopThreads) {
        C d = convert<C>(row[i]) - mu;
        d2 += d * d;
      }
      unused = 0;
      block_sum2<kLoopThreads>(d2, unused);
      var = d2 / C(cols);
    }
    C r_std = reciprocal_sqrt(var + eps);
    if (threadIdx.x == 0) {
      if (!Rms) mean[r] = mu;
      rstd[r] = r_std;
    }
    for (int64_t i = threadIdx.x; i < cols; i += kLoopThreads) {
      C o = (convert<C>(row[i]) - mu) * r_std;
      if (w) o *= convert<C>(w[i]);
      if (b) o += convert<C>(b[i]);
      y[r * cols + i] = convert<T>(o);
    }
  }
}

// ---- backward ----------------------------------------------------------------------------

// dx + add as eager's addition of the two tensors computes it: both in the compute type, rounded
// once to T (Note [A gradient summed where it is made] in autograd/engine.cpp).
template <typename T>
__device__ __forceinline__ T summed(T d, T a) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return convert<T>(convert<C>(d) + convert<C>(a));
}

// partial: [2][gridDim.x][cols], the block's column sums of dy * xhat, then of dy. Each thread
// holds Packs packs of a row (Threads a multiple of 32); x and dy stay as loaded and xhat and
// g = dy * w are computed again for dx, so the registers go to the column sums. A block takes
// Rows rows an iteration (Rows > 1 only with one pack a thread): their loads are in flight
// together and their block sums share one pair of barriers.
template <typename T, typename G, typename C, int Threads, int Packs, int Rows, bool Rms>
__global__ void __launch_bounds__(Threads)
    norm_backward_regs(const G* __restrict__ dy, const T* __restrict__ x,
                       const C* __restrict__ mean, const C* __restrict__ rstd,
                       const T* __restrict__ w, T* __restrict__ dx, const T* __restrict__ add,
                       C* __restrict__ partial, int64_t rows, int64_t cols) {
  static_assert(Rows == 1 || Packs == 1, "several rows an iteration hold one pack a thread");
  constexpr int V = 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1;
  using P = RowPack<T, V>;
  using PG = RowPack<G, V>;  // dy's pack: V items of G (8 bytes for 16-bit dy beside float32 x)
  int64_t packs = cols / V;
  P pw[Packs];
  C dw[Packs][V], db[Packs][V];
#pragma unroll
  for (int k = 0; k < Packs; ++k) {
    int64_t p = threadIdx.x + static_cast<int64_t>(k) * Threads;
    if (w && p < packs) pw[k] = reinterpret_cast<const P*>(w)[p];
#pragma unroll
    for (int j = 0; j < V; ++j) dw[k][j] = db[k][j] = 0;
  }
  auto scaled = [&](const PG& pg, int k, int j) {
    C gy = convert<C>(pg.v[j]);
    return w ? gy * convert<C>(pw[k].v[j]) : gy;
  };
  C n = C(cols);
  for (int64_t r0 = static_cast<int64_t>(blockIdx.x) * Rows; r0 < rows;
       r0 += static_cast<int64_t>(gridDim.x) * Rows) {
    P px[Rows][Packs];
    PG pg[Rows][Packs];
    C mu[Rows], r_std[Rows], sums[2 * Rows];  // sums: each row's dot, then its avg
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
      int64_t r = r0 + i < rows ? r0 + i : rows - 1;  // a missing row repeats the last, unused
      const P* xrow = reinterpret_cast<const P*>(x + r * cols);
      const PG* grow = reinterpret_cast<const PG*>(dy + r * cols);
#pragma unroll
      for (int k = 0; k < Packs; ++k) {
        int64_t p = threadIdx.x + static_cast<int64_t>(k) * Threads;
        if (p < packs) {
          px[i][k] = xrow[p];
          pg[i][k] = grow[p];
        }
      }
      mu[i] = Rms ? C(0) : mean[r];
      r_std[i] = rstd[r];
    }
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
      C dot = 0, avg = 0;
      bool live = r0 + i < rows;
#pragma unroll
      for (int k = 0; k < Packs; ++k) {
        int64_t p = threadIdx.x + static_cast<int64_t>(k) * Threads;
        if (p < packs) {
#pragma unroll
          for (int j = 0; j < V; ++j) {
            C xh = (convert<C>(px[i][k].v[j]) - mu[i]) * r_std[i];
            C gy = convert<C>(pg[i][k].v[j]);
            if (live) {
              dw[k][j] += gy * xh;
              db[k][j] += gy;
            }
            C g = scaled(pg[i][k], k, j);
            dot += g * xh;
            avg += g;
          }
        }
      }
      sums[2 * i] = dot;
      sums[2 * i + 1] = avg;
    }
    if (!dx) continue;
    norm_rows::block_sums<Threads, 2 * Rows>(sums);
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
      if (r0 + i >= rows) break;
      C dot = sums[2 * i] / n, avg = Rms ? C(0) : sums[2 * i + 1] / n;
      P* out = reinterpret_cast<P*>(dx + (r0 + i) * cols);
      const P* addend = add ? reinterpret_cast<const P*>(add + (r0 + i) * cols) : nullptr;
#pragma unroll
      for (int k = 0; k < Packs; ++k) {
        int64_t p = threadIdx.x + static_cast<int64_t>(k) * Threads;
        if (p < packs) {
          P o, a;
          if (addend) a = addend[p];
#pragma unroll
          for (int j = 0; j < V; ++j) {
            C xh = (convert<C>(px[i][k].v[j]) - mu[i]) * r_std[i];
            T d = convert<T>(r_std[i] * (scaled(pg[i][k], k, j) - avg - xh * dot));
            o.v[j] = addend ? summed(d, a.v[j]) : d;
          }
          out[p] = o;
        }
      }
    }
  }
  C* pw_out = partial + static_cast<int64_t>(blockIdx.x) * cols;
  C* pb_out = partial + (static_cast<int64_t>(gridDim.x) + blockIdx.x) * cols;
#pragma unroll
  for (int k = 0; k < Packs; ++k) {
    int64_t p = threadIdx.x + static_cast<int64_t>(k) * Threads;
    if (p < packs) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        pw_out[p * V + j] = dw[k][j];
        pb_out[p * V + j] = db[k][j];
      }
    }
  }
}

template <typename T, typename G, typename C, bool Rms>
__global__ void __launch_bounds__(kLoopThreads)
    norm_backward_loop(const G* __restrict__ dy, const T* __restrict__ x,
                       const C* __restrict__ mean, const C* __restrict__ rstd,
                       const T* __restrict__ w, T* __restrict__ dx, const T* __restrict__ add,
                       C* __restrict__ partial, int64_t rows, int64_t cols) {
  C* pw = partial + static_cast<int64_t>(blockIdx.x) * cols;
  C* pb = partial + (static_cast<int64_t>(gridDim.x) + blockIdx.x) * cols;
  for (int64_t i = threadIdx.x; i < cols; i += kLoopThreads) pw[i] = pb[i] = 0;
  C n = C(cols);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xrow = x + r * cols;
    const G* grow = dy + r * cols;
    C mu = Rms ? C(0) : mean[r], r_std = rstd[r];
    C dot = 0, avg = 0;
    // Each thread owns columns threadIdx.x + k * kLoopThreads in every row: no other thread
    // touches its entries of the block's partial rows.
    for (int64_t i = threadIdx.x; i < cols; i += kLoopThreads) {
      C xh = (convert<C>(xrow[i]) - mu) * r_std, gy = convert<C>(grow[i]);
      pw[i] += gy * xh;
      pb[i] += gy;
      C gw = w ? gy * convert<C>(w[i]) : gy;
      dot += gw * xh;
      avg += gw;
    }
    if (!dx) continue;
    block_sum2<kLoopThreads>(dot, avg);
    dot /= n;
    avg = Rms ? C(0) : avg / n;
    for (int64_t i = threadIdx.x; i < cols; i += kLoopThreads) {
      C xh = (convert<C>(xrow[i]) - mu) * r_std, gy = convert<C>(grow[i]);
      C gw = w ? gy * convert<C>(w[i]) : gy;
      T d = convert<T>(r_std * (gw - avg - xh * dot));
      dx[r * cols + i] = add ? summed(d, add[r * cols + i]) : d;
    }
  }
}

// ---- launch ------------------------------------------------------------------------------

// The register kernels' block for rows of `cols` items of size `item`: as few threads (32 to
// 1024) as hold the row's packs kPacks to a thread; 0 when the row does not fit or is not whole
// aligned packs.
int register_threads(int64_t cols, int item, std::initializer_list<const void*> rows_and_params) {
  int64_t v = 16 / item;
  if (cols % v != 0) return 0;
  for (const void* p : rows_and_params)
    if (!aligned16(p)) return 0;
  int64_t packs = cols / v;
  for (int threads = 32; threads <= 1024; threads *= 2)
    if (packs <= static_cast<int64_t>(threads) * kPacks) return threads;
  return 0;
}

template <auto Kernel>
using kernel_tag = std::integral_constant<decltype(Kernel), Kernel>;

// The backward register kernel's block: one pack a thread on the fewest threads of
// kBackwardThreads that hold the row (a multiple of 32, so few lanes idle) while the row has at
// most 1024 packs, else 1024 threads with 2 or 4 packs each; {0, 0, 1} when the row does not fit
// or is not whole aligned packs. 16-bit rows of one pack a thread take 4 rows an iteration.
// Note [Fused row normalization kernels] has the measurements.
struct BackwardBlock {
  int threads;
  int packs;
  int rows;  // rows a block takes an iteration
};
constexpr int kBackwardThreads[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};

BackwardBlock backward_block(int64_t cols, int item, std::initializer_list<const void*> tensors) {
  if (register_threads(cols, item, tensors) == 0) return {0, 0, 1};
  int64_t packs = cols / (16 / item);
  for (int threads : kBackwardThreads)
    if (packs <= threads) return {threads, 1, item == 2 ? 4 : 1};
  return {1024, packs <= 2048 ? 2 : 4, 1};
}

// Calls body(kernel, threads) with the backward kernel for `block` (the loop kernel for {0, 0, 1});
// `kernel` is a std::integral_constant, a type of its own for each kernel.
template <typename T, typename G, typename C, bool R, typename Body>
void with_backward_kernel(BackwardBlock block, Body body) {
  switch ((block.threads * 8 + block.packs) * 8 + block.rows) {
#define GENESIS_NORM_BACKWARD_CASE(N, K, Rows)                         \
  case (N * 8 + K) * 8 + Rows:                                         \
    body(kernel_tag<norm_backward_regs<T, G, C, N, K, Rows, R>>{}, N); \
    return;
#define GENESIS_NORM_BACKWARD_ONE_PACK(N)                             \
  GENESIS_NORM_BACKWARD_CASE(N, 1, 1)                                 \
  case (N * 8 + 1) * 8 + 4:                                           \
    if constexpr (sizeof(T) == 2) {                                   \
      body(kernel_tag<norm_backward_regs<T, G, C, N, 1, 4, R>>{}, N); \
      return;                                                         \
    }                                                                 \
    body(kernel_tag<norm_backward_loop<T, G, C, R>>{}, kLoopThreads); \
    return;
    GENESIS_NORM_BACKWARD_ONE_PACK(32)
    GENESIS_NORM_BACKWARD_ONE_PACK(64)
    GENESIS_NORM_BACKWARD_ONE_PACK(96)
    GENESIS_NORM_BACKWARD_ONE_PACK(128)
    GENESIS_NORM_BACKWARD_ONE_PACK(192)
    GENESIS_NORM_BACKWARD_ONE_PACK(256)
    GENESIS_NORM_BACKWARD_ONE_PACK(384)
    GENESIS_NORM_BACKWARD_ONE_PACK(512)
    GENESIS_NORM_BACKWARD_ONE_PACK(768)
    GENESIS_NORM_BACKWARD_ONE_PACK(1024)
    GENESIS_NORM_BACKWARD_CASE(1024, 2, 1)
    GENESIS_NORM_BACKWARD_CASE(1024, 4, 1)
#undef GENESIS_NORM_BACKWARD_ONE_PACK
#undef GENESIS_NORM_BACKWARD_CASE
    default:
      body(kernel_tag<norm_backward_loop<T, G, C, R>>{}, kLoopThreads);
  }
}

unsigned grid_for(int64_t rows) {
  return static_cast<unsigned>(std::min<int64_t>(rows, int64_t{1} << 30));
}

template <typename T, typename C, bool Rms>
void forward_typed(const void* x, const void* w, const void* b, void* y, void* mean, void* rstd,
                   int64_t rows, int64_t cols, double eps, cudaStream_t stream) {
  auto* xs = static_cast<const T*>(x);
  auto* ws = static_cast<const T*>(w);
  auto* bs = static_cast<const T*>(b);
  auto* ys = static_cast<T*>(y);
  auto* ms = static_cast<C*>(mean);
  auto* rs = static_cast<C*>(rstd);
  C e = static_cast<C>(eps);
  unsigned grid = grid_for(rows);
  unsigned warp_grid = grid_for((rows + kWarpRows - 1) / kWarpRows);
  int threads = register_threads(cols, sizeof(T), {x, w, b, y});
  // Three packs a thread when they hold the row (rows of 3 * 2^k packs, as GPT-2's 768), else four.
  int packs = threads != 0 && cols / (16 / sizeof(T)) <= 3 * threads ? 3 : 4;
  // Full (above): whole packs, and the weight and bias the norm's kind has
  const bool full = threads != 0 && cols / (16 / sizeof(T)) == int64_t{threads} * packs &&
                    w != nullptr && (Rms ? b == nullptr : b != nullptr);
  switch (threads * 8 + packs) {
#define GENESIS_NORM_FORWARD_CASE(N, K)                                                           \
  case N * 8 + K:                                                                                 \
    (full ? norm_forward_regs<T, C, N, K, Rms, true>                                              \
          : norm_forward_regs<                                                                    \
                T, C, N, K, Rms,                                                                  \
                false>)<<<N == 32 ? warp_grid : grid, N == 32 ? 32 * kWarpRows : N, 0, stream>>>( \
        xs, ws, bs, ys, ms, rs, rows, cols, e);                                                   \
    return;
    GENESIS_NORM_FORWARD_CASE(32, 3)
    GENESIS_NORM_FORWARD_CASE(32, 4)
    GENESIS_NORM_FORWARD_CASE(64, 3)
    GENESIS_NORM_FORWARD_CASE(64, 4)
    GENESIS_NORM_FORWARD_CASE(128, 3)
    GENESIS_NORM_FORWARD_CASE(128, 4)
    GENESIS_NORM_FORWARD_CASE(256, 3)
    GENESIS_NORM_FORWARD_CASE(256, 4)
    GENESIS_NORM_FORWARD_CASE(512, 3)
    GENESIS_NORM_FORWARD_CASE(512, 4)
    GENESIS_NORM_FORWARD_CASE(1024, 3)
    GENESIS_NORM_FORWARD_CASE(1024, 4)
#undef GENESIS_NORM_FORWARD_CASE
    default:
      norm_forward_loop<T, C, Rms>
          <<<grid, kLoopThreads, 0, stream>>>(xs, ws, bs, ys, ms, rs, rows, cols, e);
  }
}

template <typename T, typename G, typename C, bool Rms>
void backward_typed(const void* dy, const void* x, const void* mean, const void* rstd,
                    const void* w, void* dx, const void* add, void* dw, void* db, void* workspace,
                    int64_t blocks, int64_t rows, int64_t cols, cudaStream_t stream) {
  auto* gs = static_cast<const G*>(dy);
  auto* xs = static_cast<const T*>(x);
  auto* ms = static_cast<const C*>(mean);
  auto* rs = static_cast<const C*>(rstd);
  auto* ws = static_cast<const T*>(w);
  auto* dxs = static_cast<T*>(dx);
  auto* partial = static_cast<C*>(workspace);
  unsigned grid = static_cast<unsigned>(blocks);
  auto* adds = static_cast<const T*>(add);
  with_backward_kernel<T, G, C, Rms>(backward_block(cols, sizeof(T), {dy, x, w, dx, add}),
                                     [&](auto kernel, int threads) {
                                       decltype(kernel)::value<<<grid, threads, 0, stream>>>(
                                           gs, xs, ms, rs, ws, dxs, adds, partial, rows, cols);
                                     });
  // Both gradients' column sums in the same launches (the bias's partial rows follow the weight's).
  if (dw)
    norm_rows::launch_column_sums(partial, blocks, cols, static_cast<T*>(dw), stream,
                                  static_cast<T*>(db));
  else if (db)
    norm_rows::launch_column_sums(partial + blocks * cols, blocks, cols, static_cast<T*>(db),
                                  stream);
}

// Body<T, G, C, R>::run(args...) for x's dtype code `dtype` (T), dy's `grad_dtype` (G: T, or a
// 16-bit type beside float32 x), the compute type C and rms.
template <template <typename, typename, typename, bool> class Body, typename... Args>
void dispatch(int dtype, int grad_dtype, bool rms, Args... args) {
  auto go = [&](auto rms_tag) {
    constexpr bool R = decltype(rms_tag)::value;
    switch (dtype) {
      case kFloat16:
        return Body<__half, __half, float, R>::run(args...);
      case kBFloat16:
        return Body<__nv_bfloat16, __nv_bfloat16, float, R>::run(args...);
      case kFloat32:
        if (grad_dtype == kBFloat16) return Body<float, __nv_bfloat16, float, R>::run(args...);
        if (grad_dtype == kFloat16) return Body<float, __half, float, R>::run(args...);
        return Body<float, float, float, R>::run(args...);
      case kFloat64:
        return Body<double, double, double, R>::run(args...);
      default:
        return;  // the caller checked the dtype
    }
  };
  if (rms)
    go(std::true_type{});
  else
    go(std::false_type{});
}

template <typename T, typename G, typename C, bool R>
struct Forward {
  template <typename... A>
  static void run(A... a) {
    if constexpr (std::is_same_v<T, G>) forward_typed<T, C, R>(a...);
  }
};

template <typename T, typename G, typename C, bool R>
struct Backward {
  template <typename... A>
  static void run(A... a) {
    backward_typed<T, G, C, R>(a...);
  }
};

// The blocks of the backward kernel for `threads` (0: the loop kernel) one multiprocessor holds,
// asked once per kernel.
template <typename K>
int64_t blocks_per_sm(K kernel, int threads) {
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    n = 1;
  }
  return std::max(n, 1);
}

template <typename T, typename G, typename C, bool R>
struct Resident {
  static void run(BackwardBlock block, int64_t* out) {
    with_backward_kernel<T, G, C, R>(block, [&](auto kernel, int threads) {
      static const int64_t n = blocks_per_sm(decltype(kernel)::value, threads);  // per kernel
      *out = n;
    });
  }
};

int item_size(int dtype) { return dtype == kFloat64 ? 8 : dtype == kFloat32 ? 4 : 2; }

}  // namespace

void launch_row_norm_forward(int dtype, const void* x, const void* w, const void* b, void* y,
                             void* mean, void* rstd, int64_t rows, int64_t cols, double eps,
                             bool rms, void* stream) {
  dispatch<Forward>(dtype, dtype, rms, x, w, b, y, mean, rstd, rows, cols, eps,
                    static_cast<cudaStream_t>(stream));
}

int64_t row_norm_backward_blocks(int dtype, int grad_dtype, const void* dy, const void* x,
                                 const void* w, const void* dx, const void* add, int64_t rows,
                                 int64_t cols, bool rms, int device_sms) {
  // As many blocks as the GPU holds at once (the kernel's occupancy), so that one wave takes
  // every row and the partial rows the column sums read stay few.
  int64_t per_sm = 1;
  BackwardBlock block = backward_block(cols, item_size(dtype), {dy, x, w, dx, add});
  dispatch<Resident>(dtype, grad_dtype, rms, block, &per_sm);
  int64_t iterations = (rows + block.rows - 1) / block.rows;  // a block's first takes rows rows
  return std::max<int64_t>(1, std::min(iterations, per_sm * device_sms));
}

void launch_row_norm_backward(int dtype, int grad_dtype, const void* dy, const void* x,
                              const void* mean, const void* rstd, const void* w, void* dx,
                              const void* add, void* dw, void* db, void* workspace, int64_t blocks,
                              int64_t rows, int64_t cols, bool rms, void* stream) {
  dispatch<Backward>(dtype, grad_dtype, rms, dy, x, mean, rstd, w, dx, add, dw, db, workspace,
                     blocks, rows, cols, static_cast<cudaStream_t>(stream));
}

}  // namespace genesis::kernels

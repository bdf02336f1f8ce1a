// Note [Fused batch norm kernels]: a channel's statistics are sums over its N planes of S
// items. Each channel's planes are split over `parts` blocks (grid parts x C); a block sums its
// planes (threads striding along each plane, so reads are coalesced) and leaves its partial sums
// in the workspace; a warp per channel then adds a channel's parts in a fixed order
// (deterministic) and finishes: the mean and 1/std (and the running statistics) forward, the
// weight's and bias's gradients and three coefficients backward, with which one elementwise
// pass over the planes writes dx = k1 * dy - k2 * x + k3. The forward's sums are of x - x0,
// x0 the channel's first item, so a large common offset cancels before the squares are summed.
// A channels-last input is (N * S) rows of C items: there a block is RowLanes x ChannelLanes
// threads, each thread a channel's running sums over a stride of rows (lanes read a row's
// channels side by side: coalesced), added over the RowLanes in a fixed order, so the same
// partial sums and the same finishing kernels serve both layouts, and the elementwise passes
// keep a channel per thread with its coefficients in registers. The weight, bias and running
// statistics may be float32 beside a 16-bit input (autocast's BatchNorm): a type P of their own.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/batch_norm.cuh"
#include "kernels/dtype_traits.cuh"
#include "kernels/row_blocks.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

// The planes of channel blockIdx.y that block blockIdx.x takes.
__device__ __forceinline__ void planes_of(const ChannelDims& d, int64_t& n0, int64_t& n1) {
  n0 = d.n * blockIdx.x / gridDim.x;
  n1 = d.n * (blockIdx.x + 1) / gridDim.x;
}

// partial[(c * parts + p) * 2 + {0, 1}] = sums of x - x0 and (x - x0)^2.
template <typename T, typename C>
__global__ void __launch_bounds__(kThreads)
    stats_parts(const T* __restrict__ x, ChannelDims d, C* __restrict__ partial) {
  int64_t c = blockIdx.y, n0, n1;
  planes_of(d, n0, n1);
  C x0 = convert<C>(x[c * d.s]);
  C s1 = 0, s2 = 0;
  for (int64_t n = n0; n < n1; ++n) {
    const T* plane = x + (n * d.c + c) * d.s;
    for (int64_t i = threadIdx.x; i < d.s; i += kThreads) {
      C v = convert<C>(plane[i]) - x0;
      s1 += v;
      s2 += v * v;
    }
  }
  norm_rows::block_sum2<kThreads>(s1, s2);
  if (threadIdx.x == 0) {
    C* out = partial + (c * gridDim.x + blockIdx.x) * 2;
    out[0] = s1;
    out[1] = s2;
  }
}

// Channels-last: thread (row lane r, channel lane) of a block of `lanes` channel lanes; block
// (blockIdx.x, blockIdx.y) takes rows [m0, m1) of channel tile blockIdx.y.
struct RowLanes {
  int lanes, r, rows_per;
  int64_t c, m0, m1;
  __device__ explicit RowLanes(const ChannelDims& d, int lanes_) : lanes(lanes_) {
    r = threadIdx.x / lanes;
    rows_per = blockDim.x / lanes;
    c = static_cast<int64_t>(blockIdx.y) * lanes + threadIdx.x % lanes;
    int64_t m = d.n * d.s;
    m0 = m * blockIdx.x / gridDim.x;
    m1 = m * (blockIdx.x + 1) / gridDim.x;
  }
};

// Note [Channels-last rows four at a time]: a channels-last thread reads one item a row (two
// bytes for 16-bit dtypes), so its loads must overlap to hide the memory's latency; the row
// loops were compiled one row an iteration (SASS: one LDG each of dy and x, then the branch
// back), and `#pragma unroll 4` kept a branch between rows. Here load(k, m) runs for four rows
// before use(k) runs for them in row order: sums still add row by row in the same order, so the
// results are bit for bit those of the plain loop. On an H100 (session 48, the ResNet-style
// step's six bf16 batch norms) the four kernels went from 717 to 490 us (torch: 639).
// Tried for the planes too (Note [Fused batch norm kernels]): 16-byte packs four at a time in
// the sums took the statistics from 36.2 to 34.1 us but the gradient's sums from 53.8 to 59.1
// (256 x 64 x 32 x 32 float32, tools/batch_norm_probe.cu): not kept.
template <typename Load, typename Use>
__device__ __forceinline__ void rows_four_at_a_time(const RowLanes& t, Load load, Use use) {
  int64_t m = t.m0 + t.r;
  const int64_t step = t.rows_per;
  for (; m + 3 * step < t.m1; m += 4 * step) {
#pragma unroll
    for (int k = 0; k < 4; ++k) load(k, m + k * step);
#pragma unroll
    for (int k = 0; k < 4; ++k) use(k);
  }
  for (; m < t.m1; m += step) {
    load(0, m);
    use(0);
  }
}

// The two sums of every row lane added, in row-lane order, into partial (row lane 0 writes).
template <typename C>
__device__ __forceinline__ void rows_to_partial(const RowLanes& t, const ChannelDims& d, C s1, C s2,
                                                C* __restrict__ partial) {
  __shared__ C sum1[kThreads], sum2[kThreads];
  sum1[threadIdx.x] = s1;
  sum2[threadIdx.x] = s2;
  __syncthreads();
  if (t.r != 0 || t.c >= d.c) return;
  for (int q = 1; q < t.rows_per; ++q) {
    s1 += sum1[q * t.lanes + threadIdx.x];
    s2 += sum2[q * t.lanes + threadIdx.x];
  }
  C* out = partial + (t.c * gridDim.x + blockIdx.x) * 2;
  out[0] = s1;
  out[1] = s2;
}

template <typename T, typename C>
__global__ void __launch_bounds__(kThreads)
    stats_rows(const T* __restrict__ x, ChannelDims d, int lanes, C* __restrict__ partial) {
  RowLanes t(d, lanes);
  C s1 = 0, s2 = 0;
  if (t.c < d.c) {
    C x0 = convert<C>(x[t.c]);
    T xs[4];
    rows_four_at_a_time(
        t, [&](int k, int64_t m) { xs[k] = x[m * d.c + t.c]; },
        [&](int k) {
          C v = convert<C>(xs[k]) - x0;
          s1 += v;
          s2 += v * v;
        });
  }
  rows_to_partial(t, d, s1, s2, partial);
}

// The finishing kernels give each channel a warp (kFinishWarps a block): lane l adds parts
// l, l + 32, ... and the lanes' sums meet in a fixed shuffle tree at lane 0, which finishes the
// channel. A fixed order, so results repeat bit for bit; one thread a channel walking hundreds
// of parts one load after another took about 50 us a call.
constexpr int kFinishWarps = 4;

struct FinishLane {
  int64_t c;
  int lane;
  __device__ FinishLane()
      : c(static_cast<int64_t>(blockIdx.x) * kFinishWarps + threadIdx.x / 32),
        lane(static_cast<int>(threadIdx.x % 32)) {}
};

// The two sums of channel c's parts, complete in lane 0.
template <typename C>
__device__ __forceinline__ void sum_parts(const C* __restrict__ partial, int64_t c, int64_t parts,
                                          int lane, C& s1, C& s2) {
  s1 = 0, s2 = 0;
  for (int64_t p = lane; p < parts; p += 32) {
    s1 += partial[(c * parts + p) * 2];
    s2 += partial[(c * parts + p) * 2 + 1];
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    s1 += __shfl_down_sync(0xffffffffu, s1, offset);
    s2 += __shfl_down_sync(0xffffffffu, s2, offset);
  }
}

// first: the index of each channel's first item per channel (S for planes, 1 for rows).
template <typename T, typename P, typename C>
__global__ void stats_finish(const T* __restrict__ x, ChannelDims d, int64_t parts,
                             const C* __restrict__ partial, C eps, C momentum, C* __restrict__ mean,
                             C* __restrict__ invstd, P* __restrict__ running_mean,
                             P* __restrict__ running_var) {
  FinishLane t;
  if (t.c >= d.c) return;  // the whole warp: its lanes share c
  const int64_t c = t.c;
  C s1, s2;
  sum_parts(partial, c, parts, t.lane, s1, s2);
  if (t.lane != 0) return;
  C count = C(d.n * d.s);
  C shifted_mean = s1 / count;
  C m2 = s2 - s1 * shifted_mean;
  m2 = m2 > C(0) ? m2 : C(0);
  C var = m2 / count;
  C mu = convert<C>(x[d.rows ? c : c * d.s]) + shifted_mean;
  mean[c] = mu;
  invstd[c] = C(1) / sqrt(var + eps);
  if (running_mean) {
    C unbiased = count > C(1) ? m2 / (count - C(1)) : var;
    running_mean[c] = convert<P>((C(1) - momentum) * convert<C>(running_mean[c]) + momentum * mu);
    running_var[c] =
        convert<P>((C(1) - momentum) * convert<C>(running_var[c]) + momentum * unbiased);
  }
}

// Note [Batch norm's elementwise planes]: the elementwise passes take one plane a block, in
// 16-byte packs of V items where the planes allow (V = 1 otherwise), and, right after the sums
// of `parts` blocks a channel (parts > 0), late first: the sums' block p of channel c reads
// planes n0(p), n0(p) + 1, ... one step at a time, so the planes of the last steps are the ones
// still in L2; block b takes step t = steps - 1 - b / (parts * C) of part p and channel c
// (blocks past a shorter part's planes return). On an H100 (session 42's probe, 256 x 64 x 32 x
// 32 f32) packs took the forward's two passes from 91.6 to 84.9 us and the backward's from
// 128.7 to 122.6; late first 83.4 and 119.0.
__device__ __forceinline__ int64_t plane_of_block(const ChannelDims& d, int64_t parts, int64_t& c) {
  const int64_t b = blockIdx.x;
  if (parts <= 0) {
    c = b % d.c;
    return b;
  }
  const int64_t steps = (d.n + parts - 1) / parts, per_step = parts * d.c;
  const int64_t t = steps - 1 - b / per_step, r = b % per_step, p = r / d.c;
  c = r % d.c;
  const int64_t n = d.n * p / parts + t;
  return n < d.n * (p + 1) / parts ? n * d.c + c : -1;
}

unsigned plane_blocks(const ChannelDims& d, int64_t parts) {
  return static_cast<unsigned>(parts > 0 ? (d.n + parts - 1) / parts * parts * d.c : d.n * d.c);
}

template <typename T, typename P, typename C, int V>
__global__ void __launch_bounds__(kThreads)
    apply_planes(const T* __restrict__ x, ChannelDims d, int64_t parts, const C* __restrict__ mean,
                 const C* __restrict__ invstd, const P* __restrict__ w, const P* __restrict__ b,
                 T* __restrict__ y) {
  using Pk = norm_rows::Pack<T, V>;
  int64_t c, plane = plane_of_block(d, parts, c);
  if (plane < 0) return;
  C scale = invstd[c] * (w ? convert<C>(w[c]) : C(1));
  C shift = (b ? convert<C>(b[c]) : C(0)) - mean[c] * scale;
  const Pk* src = reinterpret_cast<const Pk*>(x + plane * d.s);
  Pk* dst = reinterpret_cast<Pk*>(y + plane * d.s);
  for (int64_t i = threadIdx.x; i < d.s / V; i += blockDim.x) {
    Pk in = src[i], out;
#pragma unroll
    for (int j = 0; j < V; ++j) out.v[j] = convert<T>(convert<C>(in.v[j]) * scale + shift);
    dst[i] = out;
  }
}

template <typename T, typename P, typename C>
__global__ void __launch_bounds__(kThreads)
    apply_rows(const T* __restrict__ x, ChannelDims d, int lanes, const C* __restrict__ mean,
               const C* __restrict__ invstd, const P* __restrict__ w, const P* __restrict__ b,
               T* __restrict__ y) {
  RowLanes t(d, lanes);
  if (t.c >= d.c) return;
  C scale = invstd[t.c] * (w ? convert<C>(w[t.c]) : C(1));
  C shift = (b ? convert<C>(b[t.c]) : C(0)) - mean[t.c] * scale;
  T xs[4];
  int64_t ats[4];
  rows_four_at_a_time(
      t,
      [&](int k, int64_t m) {
        ats[k] = m * d.c + t.c;
        xs[k] = x[ats[k]];
      },
      [&](int k) { y[ats[k]] = convert<T>(convert<C>(xs[k]) * scale + shift); });
}

// partial[(c * parts + p) * 2 + {0, 1}] = sums of dy and dy * (x - mean[c]).
template <typename T, typename C>
__global__ void __launch_bounds__(kThreads)
    grad_parts(const T* __restrict__ dy, const T* __restrict__ x, ChannelDims d,
               const C* __restrict__ mean, C* __restrict__ partial) {
  int64_t c = blockIdx.y, n0, n1;
  planes_of(d, n0, n1);
  C mu = mean[c];
  C s1 = 0, s2 = 0;
  for (int64_t n = n0; n < n1; ++n) {
    int64_t base = (n * d.c + c) * d.s;
    for (int64_t i = threadIdx.x; i < d.s; i += kThreads) {
      C g = convert<C>(dy[base + i]);
      s1 += g;
      s2 += g * (convert<C>(x[base + i]) - mu);
    }
  }
  norm_rows::block_sum2<kThreads>(s1, s2);
  if (threadIdx.x == 0) {
    C* out = partial + (c * gridDim.x + blockIdx.x) * 2;
    out[0] = s1;
    out[1] = s2;
  }
}

template <typename T, typename C>
__global__ void __launch_bounds__(kThreads)
    grad_rows(const T* __restrict__ dy, const T* __restrict__ x, ChannelDims d, int lanes,
              const C* __restrict__ mean, C* __restrict__ partial) {
  RowLanes t(d, lanes);
  C s1 = 0, s2 = 0;
  if (t.c < d.c) {
    C mu = mean[t.c];
    T gs[4], xs[4];
    rows_four_at_a_time(
        t,
        [&](int k, int64_t m) {
          gs[k] = dy[m * d.c + t.c];
          xs[k] = x[m * d.c + t.c];
        },
        [&](int k) {
          C g = convert<C>(gs[k]);
          s1 += g;
          s2 += g * (convert<C>(xs[k]) - mu);
        });
  }
  rows_to_partial(t, d, s1, s2, partial);
}

// coef[c * 3 + {0, 1, 2}] = k1, k2, k3 of dx = k1 * dy - k2 * x + k3; dw and db.
template <typename T, typename P, typename C>
__global__ void grad_finish(ChannelDims d, int64_t parts, const C* __restrict__ partial,
                            const C* __restrict__ mean, const C* __restrict__ invstd,
                            const P* __restrict__ w, bool training, C* __restrict__ coef,
                            P* __restrict__ dw, P* __restrict__ db) {
  FinishLane t;
  if (t.c >= d.c) return;  // the whole warp: its lanes share c
  const int64_t c = t.c;
  C sum_dy, sum_dy_xc;
  sum_parts(partial, c, parts, t.lane, sum_dy, sum_dy_xc);
  if (t.lane != 0) return;
  C is = invstd[c], wc = w ? convert<C>(w[c]) : C(1), count = C(d.n * d.s);
  if (dw) dw[c] = convert<P>(sum_dy_xc * is);
  if (db) db[c] = convert<P>(sum_dy);
  C k1 = wc * is, k2 = 0, k3 = 0;
  if (training) {
    k2 = wc * is * is * is * sum_dy_xc / count;
    k3 = -wc * is * sum_dy / count + k2 * mean[c];
  }
  coef[c * 3] = k1;
  coef[c * 3 + 1] = k2;
  coef[c * 3 + 2] = k3;
}

template <typename T, typename C, int V>
__global__ void __launch_bounds__(kThreads)
    grad_apply(const T* __restrict__ dy, const T* __restrict__ x, ChannelDims d, int64_t parts,
               const C* __restrict__ coef, T* __restrict__ dx) {
  using Pk = norm_rows::Pack<T, V>;
  int64_t c, plane = plane_of_block(d, parts, c);
  if (plane < 0) return;
  C k1 = coef[c * 3], k2 = coef[c * 3 + 1], k3 = coef[c * 3 + 2];
  const Pk* gs = reinterpret_cast<const Pk*>(dy + plane * d.s);
  const Pk* xs = reinterpret_cast<const Pk*>(x + plane * d.s);
  Pk* out = reinterpret_cast<Pk*>(dx + plane * d.s);
  for (int64_t i = threadIdx.x; i < d.s / V; i += blockDim.x) {
    Pk g = gs[i], v = xs[i], o;
#pragma unroll
    for (int j = 0; j < V; ++j)
      o.v[j] = convert<T>(k1 * convert<C>(g.v[j]) - k2 * convert<C>(v.v[j]) + k3);
    out[i] = o;
  }
}

template <typename T, typename C>
__global__ void __launch_bounds__(kThreads)
    grad_apply_rows(const T* __restrict__ dy, const T* __restrict__ x, ChannelDims d, int lanes,
                    const C* __restrict__ coef, T* __restrict__ dx) {
  RowLanes t(d, lanes);
  if (t.c >= d.c) return;
  C k1 = coef[t.c * 3], k2 = coef[t.c * 3 + 1], k3 = coef[t.c * 3 + 2];
  T gs[4], xs[4];
  int64_t ats[4];
  rows_four_at_a_time(
      t,
      [&](int k, int64_t m) {
        ats[k] = m * d.c + t.c;
        gs[k] = dy[ats[k]];
        xs[k] = x[ats[k]];
      },
      [&](int k) {
        dx[ats[k]] = convert<T>(k1 * convert<C>(gs[k]) - k2 * convert<C>(xs[k]) + k3);
      });
}

int plane_threads(int64_t s) {
  int64_t t = (s + 31) / 32 * 32;
  return static_cast<int>(std::min<int64_t>(kThreads, std::max<int64_t>(32, t)));
}

unsigned finish_blocks(int64_t c) {
  return static_cast<unsigned>((c + kFinishWarps - 1) / kFinishWarps);
}

// Channels-last: channel lanes a block (a multiple of 32 up to the block), its channel tiles,
// and the row blocks of the elementwise passes (a grid-stride over rows in each).
int row_lanes(int64_t c) {
  return static_cast<int>(std::min<int64_t>(kThreads, (c + 31) / 32 * 32));
}
unsigned channel_tiles(int64_t c) {
  return static_cast<unsigned>((c + row_lanes(c) - 1) / row_lanes(c));
}
unsigned row_blocks(const ChannelDims& d) {
  int64_t rows_per = kThreads / row_lanes(d.c);
  int64_t want = (d.n * d.s + rows_per * 16 - 1) / (rows_per * 16);  // 16 rows a thread or more
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(want, 8192)));
}

// f(T{}, P{}, C{}): the parameters of `param_dtype`, float beside a 16-bit input.
template <typename F>
void dispatch_params(int dtype, int param_dtype, const F& f) {
  dispatch_floating(dtype, [&](auto t, auto c) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      if (param_dtype != dtype) return f(t, float{}, c);
    }
    f(t, t, c);
  });
}

}  // namespace

int64_t batch_norm_parts(ChannelDims d, int device_sms) {
  // About four blocks per multiprocessor in all, each at least 16k items, at most one per plane
  // (channels-last: per row lane).
  if (d.rows) {
    int64_t lanes = row_lanes(d.c), tiles = channel_tiles(d.c), m = d.n * d.s;
    int64_t want = (4 * static_cast<int64_t>(device_sms) + tiles - 1) / tiles;
    int64_t by_size = std::max<int64_t>(1, m * lanes / 16384);
    int64_t by_rows = std::max<int64_t>(1, m / (kThreads / lanes));
    return std::max<int64_t>(1, std::min({want, by_size, by_rows}));
  }
  int64_t want = (4 * static_cast<int64_t>(device_sms) + d.c - 1) / std::max<int64_t>(d.c, 1);
  int64_t by_size = std::max<int64_t>(1, d.n * d.s / 16384);
  return std::max<int64_t>(1, std::min({want, by_size, d.n}));
}

void launch_batch_norm_stats(int dtype, int param_dtype, const void* x, ChannelDims d,
                             int64_t parts, void* workspace, double eps, double momentum,
                             void* mean, void* invstd, void* running_mean, void* running_var,
                             void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_params(dtype, param_dtype, [&](auto t, auto p, auto c) {
    using T = decltype(t);
    using P = decltype(p);
    using C = decltype(c);
    auto* partial = static_cast<C*>(workspace);
    const T* xs = static_cast<const T*>(x);
    if (d.rows) {
      dim3 grid(static_cast<unsigned>(parts), channel_tiles(d.c));
      stats_rows<T, C><<<grid, kThreads, 0, s>>>(xs, d, row_lanes(d.c), partial);
    } else {
      dim3 grid(static_cast<unsigned>(parts), static_cast<unsigned>(d.c));
      stats_parts<T, C><<<grid, kThreads, 0, s>>>(xs, d, partial);
    }
    stats_finish<T, P, C><<<finish_blocks(d.c), 32 * kFinishWarps, 0, s>>>(
        xs, d, parts, partial, static_cast<C>(eps), static_cast<C>(momentum), static_cast<C*>(mean),
        static_cast<C*>(invstd), static_cast<P*>(running_mean), static_cast<P*>(running_var));
  });
}

void launch_batch_norm_apply(int dtype, int param_dtype, const void* x, ChannelDims d,
                             int64_t parts, const void* mean, const void* invstd, const void* w,
                             const void* b, void* y, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_params(dtype, param_dtype, [&](auto t, auto p, auto c) {
    using T = decltype(t);
    using P = decltype(p);
    using C = decltype(c);
    const T* xs = static_cast<const T*>(x);
    const C *mu = static_cast<const C*>(mean), *is = static_cast<const C*>(invstd);
    const P *ws = static_cast<const P*>(w), *bs = static_cast<const P*>(b);
    if (d.rows) {
      dim3 grid(row_blocks(d), channel_tiles(d.c));
      apply_rows<T, P, C>
          <<<grid, kThreads, 0, s>>>(xs, d, row_lanes(d.c), mu, is, ws, bs, static_cast<T*>(y));
    } else {
      norm_rows::with_pack<T>(d.s, {x, y}, [&](auto v) {
        constexpr int V = decltype(v)::value;
        apply_planes<T, P, C, V><<<plane_blocks(d, parts), plane_threads(d.s / V), 0, s>>>(
            xs, d, parts, mu, is, ws, bs, static_cast<T*>(y));
      });
    }
  });
}

void launch_batch_norm_backward(int dtype, int param_dtype, const void* dy, const void* x,
                                ChannelDims d, int64_t parts, void* workspace, const void* mean,
                                const void* invstd, const void* w, bool training, void* dx,
                                void* dw, void* db, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_params(dtype, param_dtype, [&](auto t, auto p, auto c) {
    using T = decltype(t);
    using P = decltype(p);
    using C = decltype(c);
    auto* partial = static_cast<C*>(workspace);
    C* coef = partial + d.c * parts * 2;
    const T *gs = static_cast<const T*>(dy), *xs = static_cast<const T*>(x);
    const C* mu = static_cast<const C*>(mean);
    if (d.rows) {
      dim3 grid(static_cast<unsigned>(parts), channel_tiles(d.c));
      grad_rows<T, C><<<grid, kThreads, 0, s>>>(gs, xs, d, row_lanes(d.c), mu, partial);
    } else {
      dim3 grid(static_cast<unsigned>(parts), static_cast<unsigned>(d.c));
      grad_parts<T, C><<<grid, kThreads, 0, s>>>(gs, xs, d, mu, partial);
    }
    grad_finish<T, P, C><<<finish_blocks(d.c), 32 * kFinishWarps, 0, s>>>(
        d, parts, partial, mu, static_cast<const C*>(invstd), static_cast<const P*>(w), training,
        coef, static_cast<P*>(dw), static_cast<P*>(db));
    if (!dx) return;
    if (d.rows) {
      dim3 grid(row_blocks(d), channel_tiles(d.c));
      grad_apply_rows<T, C>
          <<<grid, kThreads, 0, s>>>(gs, xs, d, row_lanes(d.c), coef, static_cast<T*>(dx));
    } else {
      norm_rows::with_pack<T>(d.s, {dy, x, dx}, [&](auto v) {
        constexpr int V = decltype(v)::value;
        grad_apply<T, C, V><<<plane_blocks(d, parts), plane_threads(d.s / V), 0, s>>>(
            gs, xs, d, parts, coef, static_cast<T*>(dx));
      });
    }
  });
}

}  // namespace genesis::kernels

// Note [Fused group norm kernels]: one block a row, a row being one sample's group: `per`
// channels of `spatial` contiguous items. On sm_90+ a row of whole 16-byte packs is first staged
// in shared memory by the copy engine (Note [Rows staged by the copy engine], the *_staged
// kernels) and the passes below read it there; elsewhere they read global memory. A warp takes
// whole channels (channels w, w + warps, ... for warp w) or, when a row has fewer channels than
// the block has warps, an equal slice of one channel, so every pass of a block over its row
// visits each item from the same thread (the later passes find the row in L1 or shared memory).
//
// Forward: each thread keeps Welford moments (count, mean, sum of squared deviations) of the
// 16-byte packs it reads, merged over the warp and then the block in a fixed order (exact, never
// E[x^2] - E[x]^2); then y = x * scale[c] + shift[c] with the channel's scale = rstd * w[c] and
// shift = b[c] - mean * scale: one read for the statistics, one read and one write for the result.
//
// Backward: a channel's sums over its items of dy * xhat and of dy (one warp, or its slices'
// warps added in order through shared memory) are written per sample and channel; weighted by
// w[c] and added over the row they give the two row sums dx needs,
//   dx = rstd * (dy * w[c] - avg(dy * w) - xhat * avg(dy * w * xhat)),
// written in a second pass over the row. dw[c] and db[c] add the per-sample sums over the
// samples in a fixed order (norm_rows::column_sums), so the gradients are deterministic.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "kernels/bulk_copy.cuh"
#include "kernels/dtype_traits.cuh"
#include "kernels/group_norm.cuh"
#include "kernels/row_blocks.cuh"

namespace genesis::kernels {

namespace {

using norm_rows::aligned16;
using norm_rows::block_sum2;
using norm_rows::Pack;
using norm_rows::reciprocal_sqrt;

constexpr int kMaxWarps = 8;
constexpr int kPacksPerThread = 4;  // a block doubles its warps while each keeps this many packs
// Packs a lane's loops load at once. tools/group_norm_probe.cu (64x256x32x32 float32 on an
// H200): forward 57.1 -> 53.9 us unrolled 8 times, backward 84.3 -> 73.5 us unrolled 4 times
// (8: 85.6), outputs bit for bit the same. (A backward over a thread block cluster, each row in
// 1-8 blocks' registers, ran 117.0 us against this one's 105.4 on an H100 at 72 registers a
// thread, in session 43; the probe's fixed-shape cluster variant, 37 registers, 64.4 on an H200.)
constexpr int kForwardUnroll = 8, kBackwardUnroll = 4;
// The largest row (forward) or x and dy rows (backward) staged in shared memory; larger rows take
// the kernels that read global memory twice. Staged, 64x256x32x32 float32 on an H100 (session
// 44, tools/group_norm_probe.cu): forward 68.9 -> 51.4 us, backward 103.9 -> 73.9 us, the five
// passes at the copy's rate (cudaMemcpy 51.0 us for two); blocks of 4 to 16 warps alike.
constexpr size_t kMaxStagedBytes = 96 * 1024;

// The part of a row that this thread's warp takes: channels channel, channel + channel_step, ...
// (below per), and in each the packs pack, pack + pack_step, ...
struct WarpShare {
  int64_t channel, channel_step, pack, pack_step;
  int split;  // warps a channel is cut among (1: whole channels)
};

template <int Warps>
__device__ __forceinline__ WarpShare warp_share(int64_t per) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (per >= Warps) return {warp, Warps, lane, 32, 1};
  int split = Warps / static_cast<int>(per);
  int64_t channel = warp / split;  // past per: this warp takes nothing
  return {channel < per ? channel : per, per, (warp % split) * 32 + lane, int64_t{split} * 32,
          split};
}

template <typename C>
struct Moments {
  C count, mean, m2;
};

// Chan's merge of (count, mean, m2) into a.
template <typename C>
__device__ __forceinline__ void merge(Moments<C>& a, C count, C mean, C m2) {
  C total = a.count + count;
  if (total == C(0)) return;
  C delta = mean - a.mean, f = count / total;
  a.mean += delta * f;
  a.m2 += m2 + delta * delta * a.count * f;
  a.count = total;
}

// The block's moments, returned to every thread, merged in the same order on every run: each
// warp's by a shuffle tree, then the warps' by the first warp's shuffle tree (a serial merge of
// every warp's moments in every thread cost 32 merges a thread in blocks of 32 warps).
template <typename C>
__device__ __forceinline__ Moments<C> warp_moments(Moments<C> m, int width) {
  for (int delta = width / 2; delta > 0; delta >>= 1) {  // lane 0 ends with the warp's moments
    C count = __shfl_down_sync(0xffffffffu, m.count, delta);
    C mean = __shfl_down_sync(0xffffffffu, m.mean, delta);
    C m2 = __shfl_down_sync(0xffffffffu, m.m2, delta);
    merge(m, count, mean, m2);
  }
  return m;
}

template <int Warps, typename C>
__device__ __forceinline__ Moments<C> block_moments(Moments<C> m) {
  m = warp_moments(m, 32);
  __shared__ C part[3][Warps];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // the previous row's readers are done with `part`
  if (lane == 0) {
    part[0][warp] = m.count;
    part[1][warp] = m.mean;
    part[2][warp] = m.m2;
  }
  __syncthreads();
  if (Warps > 1 && warp == 0) {
    Moments<C> w{0, 0, 0};
    if (lane < Warps) w = {part[0][lane], part[1][lane], part[2][lane]};
    w = warp_moments(w, Warps);
    __syncwarp();
    if (lane == 0) {
      part[0][0] = w.count;
      part[1][0] = w.mean;
      part[2][0] = w.m2;
    }
  }
  if (Warps > 1) __syncthreads();
  return {part[0][0], part[1][0], part[2][0]};
}

template <typename C>
__device__ __forceinline__ void warp_sum2(C& a, C& b) {
#pragma unroll
  for (int delta = 16; delta > 0; delta >>= 1) {
    a += __shfl_xor_sync(0xffffffffu, a, delta);
    b += __shfl_xor_sync(0xffffffffu, b, delta);
  }
}

template <typename T, typename C>
__device__ __forceinline__ C weight_of(const T* w, int64_t c) {
  return w ? convert<C>(w[c]) : C(1);
}

// Row r of the forward from `row` (global or shared memory) into `out`. Unroll: packs a lane's
// loops take at once (their loads in flight together).
template <typename T, typename C, int Warps, int V, int Unroll>
__device__ __forceinline__ void forward_row(const T* __restrict__ row, T* __restrict__ out_row,
                                            const WarpShare& share, int64_t r, int64_t groups,
                                            int64_t per, int64_t spatial, const T* __restrict__ w,
                                            const T* __restrict__ b, C* __restrict__ mean,
                                            C* __restrict__ rstd, C eps) {
  using P = Pack<T, V>;
  int64_t packs = spatial / V, cols = per * spatial;
  Moments<C> m{0, 0, 0};
  for (int64_t c = share.channel; c < per; c += share.channel_step) {
    const P* items = reinterpret_cast<const P*>(row + c * spatial);
#pragma unroll Unroll
    for (int64_t p = share.pack; p < packs; p += share.pack_step) {
      P pk = items[p];
      C v[V], s = 0;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        v[j] = convert<C>(pk.v[j]);
        s += v[j];
      }
      C pack_mean = s / C(V), pack_m2 = 0;
#pragma unroll
      for (int j = 0; j < V; ++j) pack_m2 += (v[j] - pack_mean) * (v[j] - pack_mean);
      merge(m, C(V), pack_mean, pack_m2);
    }
  }
  m = block_moments<Warps>(m);
  C r_std = reciprocal_sqrt(m.m2 / C(cols) + eps);
  if (threadIdx.x == 0) {
    mean[r] = m.mean;
    rstd[r] = r_std;
  }
  int64_t first = (r % groups) * per;
  for (int64_t c = share.channel; c < per; c += share.channel_step) {
    C scale = r_std * weight_of<T, C>(w, first + c);
    C shift = (b ? convert<C>(b[first + c]) : C(0)) - m.mean * scale;
    const P* items = reinterpret_cast<const P*>(row + c * spatial);
    P* out = reinterpret_cast<P*>(out_row + c * spatial);
#pragma unroll Unroll
    for (int64_t p = share.pack; p < packs; p += share.pack_step) {
      P pk = items[p], o;
#pragma unroll
      for (int j = 0; j < V; ++j) o.v[j] = convert<T>(convert<C>(pk.v[j]) * scale + shift);
      out[p] = o;
    }
  }
}

template <typename T, typename C, int Warps, int V, int Unroll = 1>
__global__ void __launch_bounds__(Warps * 32)
    group_norm_forward(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
                       T* __restrict__ y, C* __restrict__ mean, C* __restrict__ rstd, int64_t rows,
                       int64_t groups, int64_t per, int64_t spatial, C eps) {
  WarpShare share = warp_share<Warps>(per);
  int64_t cols = per * spatial;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
    forward_row<T, C, Warps, V, Unroll>(x + r * cols, y + r * cols, share, r, groups, per, spatial,
                                        w, b, mean, rstd, eps);
}

// The same, each row staged in shared memory by the copy engine (Note [Rows staged by the copy
// engine]; sm_90+, rows of whole 16-byte packs): `cols` items of dynamic shared memory.
template <typename T, typename C, int Warps, int V, int Unroll = 1>
__global__ void __launch_bounds__(Warps * 32)
    group_norm_forward_staged(const T* __restrict__ x, const T* __restrict__ w,
                              const T* __restrict__ b, T* __restrict__ y, C* __restrict__ mean,
                              C* __restrict__ rstd, int64_t rows, int64_t groups, int64_t per,
                              int64_t spatial, C eps) {
  extern __shared__ __align__(128) unsigned char staged[];
  __shared__ uint64_t arrived;
  WarpShare share = warp_share<Warps>(per);
  int64_t cols = per * spatial;
  auto bytes = static_cast<uint32_t>(cols * sizeof(T));
  if (threadIdx.x == 0) bulk_copy::init_barrier(&arrived);
  __syncthreads();
  uint32_t phase = 0;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x, phase ^= 1) {
    if (threadIdx.x == 0) bulk_copy::load(staged, x + r * cols, bytes, &arrived);
    bulk_copy::wait(&arrived, phase);
    forward_row<T, C, Warps, V, Unroll>(reinterpret_cast<const T*>(staged), y + r * cols, share, r,
                                        groups, per, spatial, w, b, mean, rstd, eps);
    __syncthreads();  // every thread is done reading the row before the next one lands
  }
}

// Row r of the backward from `xrow` and `grow` (global or shared memory); partial: [2][rows][per],
// each sample's and channel's sums of dy * xhat, then of dy. `slices`: 2 * Warps items of shared
// memory.
template <typename T, typename C, int Warps, int V, int Unroll>
__device__ __forceinline__ void backward_row(const T* __restrict__ grow, const T* __restrict__ xrow,
                                             T* __restrict__ dxrow, C (*slices)[Warps],
                                             const WarpShare& share, int64_t r, int64_t rows,
                                             int64_t groups, int64_t per, int64_t spatial,
                                             const C* __restrict__ mean, const C* __restrict__ rstd,
                                             const T* __restrict__ w, C* __restrict__ partial) {
  using P = Pack<T, V>;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int64_t packs = spatial / V, cols = per * spatial;
  C* part_w = partial;
  C* part_b = partial + rows * per;
  if (share.split > 1) __syncthreads();  // the previous row's readers are done with `slices`
  C mu = mean[r], r_std = rstd[r];
  int64_t first = (r % groups) * per;
  C dot = 0, avg = 0;  // this thread's share of the row's sums of g * xhat and g (g = dy * w)
  for (int64_t c = share.channel; c < per; c += share.channel_step) {
    const P* xs = reinterpret_cast<const P*>(xrow + c * spatial);
    const P* gs = reinterpret_cast<const P*>(grow + c * spatial);
    C a = 0, s = 0;
#pragma unroll Unroll
    for (int64_t p = share.pack; p < packs; p += share.pack_step) {
      P px = xs[p], pg = gs[p];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        C gy = convert<C>(pg.v[j]);
        a += gy * ((convert<C>(px.v[j]) - mu) * r_std);
        s += gy;
      }
    }
    warp_sum2(a, s);
    if (lane != 0) continue;
    if (share.split == 1) {
      part_w[r * per + c] = a;
      part_b[r * per + c] = s;
      C wc = weight_of<T, C>(w, first + c);
      dot += wc * a;
      avg += wc * s;
    } else {
      slices[0][warp] = a;
      slices[1][warp] = s;
    }
  }
  if (share.split > 1) {
    __syncthreads();
    if (threadIdx.x < per) {  // thread c adds its channel's slices in order
      int64_t c = threadIdx.x;
      C a = 0, s = 0;
      for (int k = 0; k < share.split; ++k) {
        a += slices[0][c * share.split + k];
        s += slices[1][c * share.split + k];
      }
      part_w[r * per + c] = a;
      part_b[r * per + c] = s;
      C wc = weight_of<T, C>(w, first + c);
      dot += wc * a;
      avg += wc * s;
    }
  }
  if (!dxrow) return;
  block_sum2<Warps * 32>(dot, avg);
  dot /= C(cols);
  avg /= C(cols);
  for (int64_t c = share.channel; c < per; c += share.channel_step) {
    C wc = weight_of<T, C>(w, first + c);
    const P* xs = reinterpret_cast<const P*>(xrow + c * spatial);
    const P* gs = reinterpret_cast<const P*>(grow + c * spatial);
    P* out = reinterpret_cast<P*>(dxrow + c * spatial);
#pragma unroll Unroll
    for (int64_t p = share.pack; p < packs; p += share.pack_step) {
      P px = xs[p], pg = gs[p], o;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        C xh = (convert<C>(px.v[j]) - mu) * r_std;
        o.v[j] = convert<T>(r_std * (convert<C>(pg.v[j]) * wc - avg - xh * dot));
      }
      out[p] = o;
    }
  }
}

template <typename T, typename C, int Warps, int V, int Unroll = 1>
__global__ void __launch_bounds__(Warps * 32)
    group_norm_backward(const T* __restrict__ dy, const T* __restrict__ x,
                        const C* __restrict__ mean, const C* __restrict__ rstd,
                        const T* __restrict__ w, T* __restrict__ dx, C* __restrict__ partial,
                        int64_t rows, int64_t groups, int64_t per, int64_t spatial) {
  __shared__ C slices[2][Warps];
  WarpShare share = warp_share<Warps>(per);
  int64_t cols = per * spatial;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
    backward_row<T, C, Warps, V, Unroll>(dy + r * cols, x + r * cols, dx ? dx + r * cols : nullptr,
                                         slices, share, r, rows, groups, per, spatial, mean, rstd,
                                         w, partial);
}

// The same, each row's x and dy staged in shared memory by the copy engine (Note [Rows staged by
// the copy engine]): 2 * `cols` items of dynamic shared memory.
template <typename T, typename C, int Warps, int V, int Unroll = 1>
__global__ void __launch_bounds__(Warps * 32)
    group_norm_backward_staged(const T* __restrict__ dy, const T* __restrict__ x,
                               const C* __restrict__ mean, const C* __restrict__ rstd,
                               const T* __restrict__ w, T* __restrict__ dx, C* __restrict__ partial,
                               int64_t rows, int64_t groups, int64_t per, int64_t spatial) {
  extern __shared__ __align__(128) unsigned char staged[];
  __shared__ uint64_t arrived;
  __shared__ C slices[2][Warps];
  WarpShare share = warp_share<Warps>(per);
  int64_t cols = per * spatial;
  auto bytes = static_cast<uint32_t>(cols * sizeof(T));
  T* xs = reinterpret_cast<T*>(staged);
  T* gs = xs + cols;
  if (threadIdx.x == 0) bulk_copy::init_barrier(&arrived);
  __syncthreads();
  uint32_t phase = 0;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x, phase ^= 1) {
    if (threadIdx.x == 0) {
      bulk_copy::expect(&arrived, 2 * bytes);
      bulk_copy::load_expected(xs, x + r * cols, bytes, &arrived);
      bulk_copy::load_expected(gs, dy + r * cols, bytes, &arrived);
    }
    bulk_copy::wait(&arrived, phase);
    backward_row<T, C, Warps, V, Unroll>(gs, xs, dx ? dx + r * cols : nullptr, slices, share, r,
                                         rows, groups, per, spatial, mean, rstd, w, partial);
    __syncthreads();  // every thread is done reading the row before the next one lands
  }
}

// ---- launch ------------------------------------------------------------------------------

// The block's warps: doubled (up to kMaxWarps) while every thread keeps kPacksPerThread packs.
int warps_for(int64_t row_packs) {
  int warps = 1;
  while (warps < kMaxWarps && row_packs >= int64_t{warps} * 2 * 32 * kPacksPerThread) warps *= 2;
  return warps;
}

// f(integral_constant<Warps>, integral_constant<V>) for the row's block and pack: 16-byte packs
// when every channel is whole packs and the rows are aligned, single items otherwise.
template <typename T, typename F>
void with_shape(int64_t per, int64_t spatial, std::initializer_list<const void*> rows_data,
                const F& f) {
  norm_rows::with_pack<T>(spatial, rows_data, [&](auto v) {
    switch (warps_for(per * (spatial / decltype(v)::value))) {
      case 1:
        return f(std::integral_constant<int, 1>{}, v);
      case 2:
        return f(std::integral_constant<int, 2>{}, v);
      case 4:
        return f(std::integral_constant<int, 4>{}, v);
      default:
        return f(std::integral_constant<int, 8>{}, v);
    }
  });
}

unsigned grid_for(int64_t rows) {
  return static_cast<unsigned>(std::min<int64_t>(rows, int64_t{1} << 30));
}

// Whether `kernel`, a staged kernel taking up to kMaxStagedBytes of dynamic shared memory, runs
// on the current device: an sm_90+ device, sm_90+ code built for it (GENESIS_CUDA_ARCHITECTURES)
// and the shared memory granted. Asked once per kernel and device (a template per kernel: a
// cache per kernel type would let one kernel's grant stand for another's of the same signature).
template <auto kernel>
bool staging_allowed() {
  constexpr int kDevices = 64;
  static std::atomic<int8_t> known[kDevices] = {};  // 0: not asked yet, 1: yes, -1: no
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kDevices) {
    (void)cudaGetLastError();
    return false;
  }
  int8_t answer = known[device].load(std::memory_order_relaxed);
  if (answer == 0) {
    int major = 0;
    cudaFuncAttributes attributes{};
    bool ok =
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
        major >= 9 && cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess &&
        attributes.binaryVersion >= 90 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(kMaxStagedBytes)) == cudaSuccess;
    if (!ok) (void)cudaGetLastError();
    answer = ok ? 1 : -1;
    known[device].store(answer, std::memory_order_relaxed);
  }
  return answer > 0;
}

template <typename T, typename C>
void forward_typed(const void* x, const void* w, const void* b, void* y, void* mean, void* rstd,
                   int64_t rows, int64_t groups, int64_t per, int64_t spatial, double eps,
                   cudaStream_t stream) {
  with_shape<T>(per, spatial, {x, y}, [&](auto warps, auto v) {
    constexpr int W = decltype(warps)::value, V = decltype(v)::value;
    size_t bytes = static_cast<size_t>(per * spatial) * sizeof(T);
    if constexpr (V == norm_rows::pack_items<T>()) {
      constexpr auto staged = group_norm_forward_staged<T, C, W, V, kForwardUnroll>;
      if (bytes <= kMaxStagedBytes && staging_allowed<staged>()) {
        staged<<<grid_for(rows), W * 32, bytes, stream>>>(
            static_cast<const T*>(x), static_cast<const T*>(w), static_cast<const T*>(b),
            static_cast<T*>(y), static_cast<C*>(mean), static_cast<C*>(rstd), rows, groups, per,
            spatial, static_cast<C>(eps));
        return;
      }
    }
    group_norm_forward<T, C, W, V, kForwardUnroll><<<grid_for(rows), W * 32, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(w), static_cast<const T*>(b),
        static_cast<T*>(y), static_cast<C*>(mean), static_cast<C*>(rstd), rows, groups, per,
        spatial, static_cast<C>(eps));
  });
}

template <typename T, typename C>
void backward_typed(const void* dy, const void* x, const void* mean, const void* rstd,
                    const void* w, void* dx, void* dw, void* db, void* partial, int64_t rows,
                    int64_t groups, int64_t per, int64_t spatial, cudaStream_t stream) {
  auto* parts = static_cast<C*>(partial);
  with_shape<T>(per, spatial, {dy, x, dx}, [&](auto warps, auto v) {
    constexpr int W = decltype(warps)::value, V = decltype(v)::value;
    size_t bytes = 2 * static_cast<size_t>(per * spatial) * sizeof(T);
    if constexpr (V == norm_rows::pack_items<T>()) {
      constexpr auto staged = group_norm_backward_staged<T, C, W, V, kBackwardUnroll>;
      if (bytes <= kMaxStagedBytes && staging_allowed<staged>()) {
        staged<<<grid_for(rows), W * 32, bytes, stream>>>(
            static_cast<const T*>(dy), static_cast<const T*>(x), static_cast<const C*>(mean),
            static_cast<const C*>(rstd), static_cast<const T*>(w), static_cast<T*>(dx), parts, rows,
            groups, per, spatial);
        return;
      }
    }
    group_norm_backward<T, C, W, V, kBackwardUnroll><<<grid_for(rows), W * 32, 0, stream>>>(
        static_cast<const T*>(dy), static_cast<const T*>(x), static_cast<const C*>(mean),
        static_cast<const C*>(rstd), static_cast<const T*>(w), static_cast<T*>(dx), parts, rows,
        groups, per, spatial);
  });
  // Column sums over the samples of [samples][channels] partial sums.
  int64_t samples = rows / groups, channels = groups * per;
  if (dw)
    norm_rows::launch_column_sums(parts, samples, channels, static_cast<T*>(dw), stream,
                                  static_cast<T*>(db));
  else if (db)
    norm_rows::launch_column_sums(parts + rows * per, samples, channels, static_cast<T*>(db),
                                  stream);
}

}  // namespace

void launch_group_norm_forward(int dtype, const void* x, const void* w, const void* b, void* y,
                               void* mean, void* rstd, int64_t rows, int64_t groups, int64_t per,
                               int64_t spatial, double eps, void* stream) {
  dispatch_floating(dtype, [&](auto t, auto c) {
    forward_typed<decltype(t), decltype(c)>(x, w, b, y, mean, rstd, rows, groups, per, spatial, eps,
                                            static_cast<cudaStream_t>(stream));
  });
}

void launch_group_norm_backward(int dtype, const void* dy, const void* x, const void* mean,
                                const void* rstd, const void* w, void* dx, void* dw, void* db,
                                void* partial, int64_t rows, int64_t groups, int64_t per,
                                int64_t spatial, void* stream) {
  dispatch_floating(dtype, [&](auto t, auto c) {
    backward_typed<decltype(t), decltype(c)>(dy, x, mean, rstd, w, dx, dw, db, partial, rows,
                                             groups, per, spatial,
                                             static_cast<cudaStream_t>(stream));
  });
}

}  // namespace genesis::kernels

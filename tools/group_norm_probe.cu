// Variants of the group norm kernels (Note [Fused group norm kernels]) timed against the
// library's own and a copy, on a GPU machine (float32, 64 x 256 x 32 x 32 in 32 groups: the
// "GroupNorm fwd+bwd" benchmark row, at 68% of the copy rate over five passes in session 41):
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I. tools/group_norm_probe.cu \
//     -o /tmp/group_norm_probe && /tmp/group_norm_probe
// It includes kernels/group_norm.cu (its kernels, launchers and helpers). The variants keep a
// thread's packs in registers between the passes (session 41's 299e0c6 kept 8 a lane in blocks
// of 8 warps, reverted when the row measured no faster: 177.8 us back to back against 174.5 one
// call a sample before, at 88-128 registers), and take blocks of 16 and 32 warps, whose lanes
// keep 4 or 2 packs of a row (a row of 32 KB no longer has to stay in L1 between passes).
// Session 44 added the staged kernels (Note [Rows staged by the copy engine]) in blocks of 4-16
// warps: on an H100 forward 51.4 us and backward 73.9 against the global-memory kernels' 68.9 and
// 103.9, five passes at the copy's rate (51.0 us for two). Each variant's output is compared with
// the library's (max difference). A measuring tool, not part of the build.
#include "kernels/group_norm.cu"

#include <cooperative_groups.h>

#include "tools/probe_helpers.cuh"

namespace genesis::kernels {
namespace {

// Visits this thread's share of a row in the same order on every pass: begin(c), then
// pack(c, p, slot) for each of channel c's packs p, then end(c). With KC > 0 the share is at most
// KC channels of KP packs (the launcher checks) and slot numbers a pack's register, constant
// after unrolling; with KC = 0 the loops run to the row's end and slot is 0.
template <int KC, int KP, typename Begin, typename Each, typename End>
__device__ __forceinline__ void visit_share(const WarpShare& share, int64_t per, int64_t packs,
                                            Begin&& begin, Each&& pack, End&& end) {
  if constexpr (KC == 0) {
    for (int64_t c = share.channel; c < per; c += share.channel_step) {
      begin(c);
      for (int64_t p = share.pack; p < packs; p += share.pack_step) pack(c, p, 0);
      end(c);
    }
  } else {
#pragma unroll
    for (int i = 0; i < KC; ++i) {
      int64_t c = share.channel + i * share.channel_step;
      if (c >= per) break;  // the same channel sequence on every lane of a warp
      begin(c);
#pragma unroll
      for (int j = 0; j < KP; ++j) {
        int64_t p = share.pack + j * share.pack_step;
        if (p < packs) pack(c, p, i * KP + j);
      }
      end(c);
    }
  }
}

template <typename T, typename C, int Warps, int V, int KC, int KP, int MinBlocks>
__global__ void __launch_bounds__(Warps * 32, MinBlocks)
    kept_forward(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
                 T* __restrict__ y, C* __restrict__ mean, C* __restrict__ rstd, int64_t rows,
                 int64_t groups, int64_t per, int64_t spatial, C eps) {
  using P = Pack<T, V>;
  WarpShare share = warp_share<Warps>(per);
  int64_t packs = spatial / V, cols = per * spatial;
  P kept[KC > 0 ? KC * KP : 1];  // this thread's packs of the row (KC > 0)
  auto none = [](int64_t) {};
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * cols;
    Moments<C> m{0, 0, 0};
    visit_share<KC, KP>(
        share, per, packs, none,
        [&](int64_t c, int64_t p, int slot) {
          P pk = reinterpret_cast<const P*>(row + c * spatial)[p];
          if constexpr (KC > 0) kept[slot] = pk;
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
        },
        none);
    m = block_moments<Warps>(m);
    C r_std = reciprocal_sqrt(m.m2 / C(cols) + eps);
    if (threadIdx.x == 0) {
      mean[r] = m.mean;
      rstd[r] = r_std;
    }
    int64_t first = (r % groups) * per;
    C scale = 0, shift = 0;
    visit_share<KC, KP>(
        share, per, packs,
        [&](int64_t c) {
          scale = r_std * weight_of<T, C>(w, first + c);
          shift = (b ? convert<C>(b[first + c]) : C(0)) - m.mean * scale;
        },
        [&](int64_t c, int64_t p, int slot) {
          P pk, o;
          if constexpr (KC > 0)
            pk = kept[slot];
          else
            pk = reinterpret_cast<const P*>(row + c * spatial)[p];
#pragma unroll
          for (int j = 0; j < V; ++j) o.v[j] = convert<T>(convert<C>(pk.v[j]) * scale + shift);
          reinterpret_cast<P*>(y + r * cols + c * spatial)[p] = o;
        },
        none);
  }
}

// partial: [2][rows][per], each sample's and channel's sums of dy * xhat, then of dy.
template <typename T, typename C, int Warps, int V, int KC, int KP, int MinBlocks>
__global__ void __launch_bounds__(Warps * 32, MinBlocks)
    kept_backward(const T* __restrict__ dy, const T* __restrict__ x, const C* __restrict__ mean,
                  const C* __restrict__ rstd, const T* __restrict__ w, T* __restrict__ dx,
                  C* __restrict__ partial, int64_t rows, int64_t groups, int64_t per,
                  int64_t spatial) {
  using P = Pack<T, V>;
  __shared__ C slices[2][Warps];
  WarpShare share = warp_share<Warps>(per);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int64_t packs = spatial / V, cols = per * spatial;
  C* part_w = partial;
  C* part_b = partial + rows * per;
  P kept_x[KC > 0 ? KC * KP : 1], kept_g[KC > 0 ? KC * KP : 1];
  auto none = [](int64_t) {};
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    if (share.split > 1) __syncthreads();  // the previous row's readers are done with `slices`
    const T* xrow = x + r * cols;
    const T* grow = dy + r * cols;
    C mu = mean[r], r_std = rstd[r];
    int64_t first = (r % groups) * per;
    C dot = 0, avg = 0;  // this thread's share of the row's sums of g * xhat and g (g = dy * w)
    C a = 0, s = 0;      // the channel's sums of dy * xhat and dy
    visit_share<KC, KP>(
        share, per, packs, [&](int64_t) { a = s = 0; },
        [&](int64_t c, int64_t p, int slot) {
          P px = reinterpret_cast<const P*>(xrow + c * spatial)[p];
          P pg = reinterpret_cast<const P*>(grow + c * spatial)[p];
          if constexpr (KC > 0) {
            kept_x[slot] = px;
            kept_g[slot] = pg;
          }
#pragma unroll
          for (int j = 0; j < V; ++j) {
            C gy = convert<C>(pg.v[j]);
            a += gy * ((convert<C>(px.v[j]) - mu) * r_std);
            s += gy;
          }
        },
        [&](int64_t c) {
          warp_sum2(a, s);
          if (lane != 0) return;
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
        });
    if (share.split > 1) {
      __syncthreads();
      if (threadIdx.x < per) {  // thread c adds its channel's slices in order
        int64_t c = threadIdx.x;
        C ca = 0, cs = 0;
        for (int k = 0; k < share.split; ++k) {
          ca += slices[0][c * share.split + k];
          cs += slices[1][c * share.split + k];
        }
        part_w[r * per + c] = ca;
        part_b[r * per + c] = cs;
        C wc = weight_of<T, C>(w, first + c);
        dot += wc * ca;
        avg += wc * cs;
      }
    }
    if (!dx) continue;
    block_sum2<Warps * 32>(dot, avg);
    dot /= C(cols);
    avg /= C(cols);
    C wc = 0;
    visit_share<KC, KP>(
        share, per, packs, [&](int64_t c) { wc = weight_of<T, C>(w, first + c); },
        [&](int64_t c, int64_t p, int slot) {
          P px, pg, o;
          if constexpr (KC > 0) {
            px = kept_x[slot];
            pg = kept_g[slot];
          } else {
            px = reinterpret_cast<const P*>(xrow + c * spatial)[p];
            pg = reinterpret_cast<const P*>(grow + c * spatial)[p];
          }
#pragma unroll
          for (int j = 0; j < V; ++j) {
            C xh = (convert<C>(px.v[j]) - mu) * r_std;
            o.v[j] = convert<T>(r_std * (convert<C>(pg.v[j]) * wc - avg - xh * dot));
          }
          reinterpret_cast<P*>(dx + r * cols + c * spatial)[p] = o;
        },
        none);
  }
}

}  // namespace
}  // namespace genesis::kernels

using namespace genesis::kernels;

constexpr int64_t kN = 64, kGroups = 32, kPer = 8, kSpatial = 1024;
constexpr int64_t kRows = kN * kGroups, kItems = kRows * kPer * kSpatial;
constexpr double kMB = kItems * 4 / 1e6;  // one pass over a tensor

// Note [Group norm rows over a cluster] (a probe variant): a row's 32 KB split over a cluster of
// kCluster blocks, each keeping its quarter in registers (2 packs a thread; x and dy backward),
// the row's moments (forward) or its two sums (backward) merged across the cluster through
// distributed shared memory in rank order. The row is read once from memory, and a block's
// registers, not L1, hold it between the passes.
constexpr int kCluster = 4, kProbeThreads = 256;
constexpr int kBlockPacks = kPer * kSpatial / 4 / kCluster;  // 512
constexpr int kThreadPacks = kBlockPacks / kProbeThreads;    // 2
constexpr int kBlockChannels = kPer / kCluster;              // 2
static_assert(kThreadPacks == kBlockChannels, "pack j of a thread lies in the block's channel j");

__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(kProbeThreads)
    cluster_forward(const float* __restrict__ x, const float* __restrict__ w,
                    const float* __restrict__ b, float* __restrict__ y, float* __restrict__ mean,
                    float* __restrict__ rstd, float eps) {
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int64_t r = blockIdx.x / kCluster;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const float4* row = reinterpret_cast<const float4*>(x + r * kPer * kSpatial) + rank * kBlockPacks;
  float4 kept[kThreadPacks];
  float sum = 0;
#pragma unroll
  for (int j = 0; j < kThreadPacks; ++j) {
    kept[j] = row[j * kProbeThreads + t];
    sum += kept[j].x + kept[j].y + kept[j].z + kept[j].w;
  }
  constexpr float kItemsHere = 4 * kThreadPacks;
  Moments<float> m{kItemsHere, sum / kItemsHere, 0};
#pragma unroll
  for (int j = 0; j < kThreadPacks; ++j) {
    float4 v = kept[j];
    m.m2 += (v.x - m.mean) * (v.x - m.mean) + (v.y - m.mean) * (v.y - m.mean) +
            (v.z - m.mean) * (v.z - m.mean) + (v.w - m.mean) * (v.w - m.mean);
  }
  m = warp_moments(m, 32);
  __shared__ float warps[3][kProbeThreads / 32];
  __shared__ float block[3];
  if (lane == 0) {
    warps[0][warp] = m.count;
    warps[1][warp] = m.mean;
    warps[2][warp] = m.m2;
  }
  __syncthreads();
  if (warp == 0) {
    Moments<float> bm{0, 0, 0};
    if (lane < kProbeThreads / 32) bm = {warps[0][lane], warps[1][lane], warps[2][lane]};
    bm = warp_moments(bm, kProbeThreads / 32);
    if (lane == 0) {
      block[0] = bm.count;
      block[1] = bm.mean;
      block[2] = bm.m2;
    }
  }
  cluster.sync();
  Moments<float> total{0, 0, 0};
#pragma unroll
  for (int k = 0; k < kCluster; ++k) {
    const float* other = cluster.map_shared_rank(block, k);
    merge(total, other[0], other[1], other[2]);
  }
  cluster.sync();  // no block leaves while another still reads its moments
  const float r_std = reciprocal_sqrt(total.m2 / float(kPer * kSpatial) + eps);
  if (rank == 0 && t == 0) {
    mean[r] = total.mean;
    rstd[r] = r_std;
  }
  float4* out = reinterpret_cast<float4*>(y + r * kPer * kSpatial) + rank * kBlockPacks;
  const int64_t first = (r % kGroups) * kPer + rank * kBlockChannels;
#pragma unroll
  for (int j = 0; j < kThreadPacks; ++j) {
    float scale = r_std * w[first + j], shift = b[first + j] - total.mean * scale;
    float4 v = kept[j];
    out[j * kProbeThreads + t] = make_float4(v.x * scale + shift, v.y * scale + shift,
                                             v.z * scale + shift, v.w * scale + shift);
  }
}

__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(kProbeThreads)
    cluster_backward(const float* __restrict__ dy, const float* __restrict__ x,
                     const float* __restrict__ mean, const float* __restrict__ rstd,
                     const float* __restrict__ w, float* __restrict__ dx,
                     float* __restrict__ partial) {
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int64_t r = blockIdx.x / kCluster;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int64_t offset = r * kPer * kSpatial;
  const float4* xs = reinterpret_cast<const float4*>(x + offset) + rank * kBlockPacks;
  const float4* gs = reinterpret_cast<const float4*>(dy + offset) + rank * kBlockPacks;
  const float mu = mean[r], r_std = rstd[r];
  float4 kx[kThreadPacks], kg[kThreadPacks];
  float sums[2 * kThreadPacks];  // per channel j: sum of dy * xhat, then of dy
#pragma unroll
  for (int j = 0; j < kThreadPacks; ++j) {
    kx[j] = xs[j * kProbeThreads + t];
    kg[j] = gs[j * kProbeThreads + t];
    float4 v = kx[j], g = kg[j];
    sums[2 * j] = g.x * ((v.x - mu) * r_std) + g.y * ((v.y - mu) * r_std) +
                  g.z * ((v.z - mu) * r_std) + g.w * ((v.w - mu) * r_std);
    sums[2 * j + 1] = g.x + g.y + g.z + g.w;
  }
#pragma unroll
  for (int i = 0; i < 2 * kThreadPacks; ++i)
#pragma unroll
    for (int delta = 16; delta > 0; delta >>= 1)
      sums[i] += __shfl_xor_sync(0xffffffffu, sums[i], delta);
  __shared__ float warps[2 * kThreadPacks][kProbeThreads / 32];
  __shared__ float block[2];  // the block's share of the row's sums of g * xhat and g (g = dy w)
  if (lane == 0)
#pragma unroll
    for (int i = 0; i < 2 * kThreadPacks; ++i) warps[i][warp] = sums[i];
  __syncthreads();
  const int64_t first = (r % kGroups) * kPer + rank * kBlockChannels;
  if (t == 0) {
    float dot = 0, avg = 0;
    for (int j = 0; j < kThreadPacks; ++j) {
      float a = 0, s = 0;
      for (int k = 0; k < kProbeThreads / 32; ++k) {
        a += warps[2 * j][k];
        s += warps[2 * j + 1][k];
      }
      partial[r * kPer + rank * kBlockChannels + j] = a;
      partial[kRows * kPer + r * kPer + rank * kBlockChannels + j] = s;
      dot += w[first + j] * a;
      avg += w[first + j] * s;
    }
    block[0] = dot;
    block[1] = avg;
  }
  cluster.sync();
  float dot = 0, avg = 0;
#pragma unroll
  for (int k = 0; k < kCluster; ++k) {
    const float* other = cluster.map_shared_rank(block, k);
    dot += other[0];
    avg += other[1];
  }
  cluster.sync();
  dot /= float(kPer * kSpatial);
  avg /= float(kPer * kSpatial);
  float4* out = reinterpret_cast<float4*>(dx + offset) + rank * kBlockPacks;
#pragma unroll
  for (int j = 0; j < kThreadPacks; ++j) {
    const float wc = w[first + j];
    float4 v = kx[j], g = kg[j];
    auto one = [&](float gi, float xi) {
      return r_std * (gi * wc - avg - (xi - mu) * r_std * dot);
    };
    out[j * kProbeThreads + t] =
        make_float4(one(g.x, v.x), one(g.y, v.y), one(g.z, v.z), one(g.w, v.w));
  }
}

void report(const char* name, float us, double passes) {
  printf("  %-52s %8.1f us  %5.2f TB/s\n", name, us, passes * kMB / us);  // MB/us = TB/s
}

// Times a variant's forward and backward kernels (each named with its registers), then compares
// their outputs with the library's.
template <typename FwdKernel, typename BwdKernel, typename Fwd, typename Bwd>
void time_variant(const char* label, FwdKernel fwd_kernel, BwdKernel bwd_kernel, Fwd fwd, Bwd bwd,
                  const float* y, const float* dx, const float* y_ref, const float* dx_ref) {
  cudaFuncAttributes attr;
  char name[112];
  CK(cudaFuncGetAttributes(&attr, fwd_kernel));
  snprintf(name, sizeof name, "fwd %s (%d regs)", label, attr.numRegs);
  report(name, probe::median_us(fwd), 2);
  CK(cudaFuncGetAttributes(&attr, bwd_kernel));
  snprintf(name, sizeof name, "bwd kernel %s (%d regs)", label, attr.numRegs);
  report(name, probe::median_us(bwd), 3);
  fwd();
  bwd();
  CK(cudaDeviceSynchronize());
  printf("    max diff y %.3g dx %.3g\n", probe::max_diff(y, y_ref, kItems),
         probe::max_diff(dx, dx_ref, kItems));
}

// Warps W a block (a channel cut among W / 8 of them), each lane keeping KP packs (KP = 0: none
// kept, the later passes read the row again), at least MinBlocks blocks a multiprocessor.
template <int W, int KP, int MinBlocks>
void kept_variant(const float* x, const float* w, const float* b, const float* dy, float* y,
                  float* dx, float* mean, float* rstd, float* partial, const float* y_ref,
                  const float* dx_ref) {
  constexpr int V = 4, KC = KP > 0 ? 1 : 0;  // a warp takes one channel's 1 / (W / 8)
  static_assert(KP == 0 || KP * 32 * (W / kPer) * V == kSpatial, "a lane's packs cover the row");
  auto fwd = [&] {
    kept_forward<float, float, W, V, KC, KP, MinBlocks>
        <<<kRows, W * 32>>>(x, w, b, y, mean, rstd, kRows, kGroups, kPer, kSpatial, 1e-5f);
  };
  auto bwd = [&] {
    kept_backward<float, float, W, V, KC, KP, MinBlocks>
        <<<kRows, W * 32>>>(dy, x, mean, rstd, w, dx, partial, kRows, kGroups, kPer, kSpatial);
  };
  char label[64];
  snprintf(label, sizeof label, "%d warps, %d packs kept, >= %d blocks/SM", W, KP, MinBlocks);
  time_variant(label, kept_forward<float, float, W, V, KC, KP, MinBlocks>,
               kept_backward<float, float, W, V, KC, KP, MinBlocks>, fwd, bwd, y, dx, y_ref,
               dx_ref);
}

// The library's kernels (8 warps) with their pack loops unrolled U times.
template <int U>
void unrolled_variant(const float* x, const float* w, const float* b, const float* dy, float* y,
                      float* dx, float* mean, float* rstd, float* partial, const float* y_ref,
                      const float* dx_ref) {
  constexpr int W = 8, V = 4;
  auto fwd = [&] {
    group_norm_forward<float, float, W, V, U>
        <<<kRows, W * 32>>>(x, w, b, y, mean, rstd, kRows, kGroups, kPer, kSpatial, 1e-5f);
  };
  auto bwd = [&] {
    group_norm_backward<float, float, W, V, U>
        <<<kRows, W * 32>>>(dy, x, mean, rstd, w, dx, partial, kRows, kGroups, kPer, kSpatial);
  };
  char label[64];
  snprintf(label, sizeof label, "library, unrolled %d", U);
  time_variant(label, group_norm_forward<float, float, W, V, U>,
               group_norm_backward<float, float, W, V, U>, fwd, bwd, y, dx, y_ref, dx_ref);
}

// The library's staged kernels (rows in shared memory by the copy engine) with W warps a block,
// their pack loops unrolled U times.
template <int W, int U>
void staged_variant(const float* x, const float* w, const float* b, const float* dy, float* y,
                    float* dx, float* mean, float* rstd, float* partial, const float* y_ref,
                    const float* dx_ref) {
  constexpr int V = 4;
  constexpr size_t kRowBytes = kPer * kSpatial * 4;
  auto fk = group_norm_forward_staged<float, float, W, V, U>;
  auto bk = group_norm_backward_staged<float, float, W, V, U>;
  CK(cudaFuncSetAttribute(fk, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * kRowBytes));
  CK(cudaFuncSetAttribute(bk, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * kRowBytes));
  int fblocks = 0, bblocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fblocks, fk, W * 32, kRowBytes));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bblocks, bk, W * 32, 2 * kRowBytes));
  auto fwd = [&] {
    fk<<<kRows, W * 32, kRowBytes>>>(x, w, b, y, mean, rstd, kRows, kGroups, kPer, kSpatial, 1e-5f);
  };
  auto bwd = [&] {
    bk<<<kRows, W * 32, 2 * kRowBytes>>>(dy, x, mean, rstd, w, dx, partial, kRows, kGroups, kPer,
                                         kSpatial);
  };
  char label[80];
  snprintf(label, sizeof label, "staged, %d warps, unrolled %d, %d/%d blocks/SM", W, U, fblocks,
           bblocks);
  time_variant(label, fk, bk, fwd, bwd, y, dx, y_ref, dx_ref);
}

int main() {
  float *x, *dy, *y, *dx, *y_ref, *dx_ref, *w, *b, *dw, *db, *mean, *rstd, *partial;
  CK(cudaMalloc(&x, kItems * 4));
  CK(cudaMalloc(&dy, kItems * 4));
  CK(cudaMalloc(&y, kItems * 4));
  CK(cudaMalloc(&dx, kItems * 4));
  CK(cudaMalloc(&y_ref, kItems * 4));
  CK(cudaMalloc(&dx_ref, kItems * 4));
  CK(cudaMalloc(&w, kGroups * kPer * 4));
  CK(cudaMalloc(&b, kGroups * kPer * 4));
  CK(cudaMalloc(&dw, kGroups * kPer * 4));
  CK(cudaMalloc(&db, kGroups * kPer * 4));
  CK(cudaMalloc(&mean, kRows * 4));
  CK(cudaMalloc(&rstd, kRows * 4));
  CK(cudaMalloc(&partial, 2 * kRows * kPer * 4));
  probe::fill<<<1024, 256>>>(x, kItems, 1);
  probe::fill<<<1024, 256>>>(dy, kItems, 2);
  probe::fill<<<1, 256>>>(w, kGroups * kPer, 3);
  probe::fill<<<1, 256>>>(b, kGroups * kPer, 4);
  CK(cudaDeviceSynchronize());
  const int f32 = kFloat32;
  report("cudaMemcpy device to device (2 passes)",
         probe::median_us([&] { CK(cudaMemcpyAsync(y, x, kItems * 4, cudaMemcpyDeviceToDevice)); }),
         2);
  auto lib_fwd = [&] {
    launch_group_norm_forward(f32, x, w, b, y_ref, mean, rstd, kRows, kGroups, kPer, kSpatial, 1e-5,
                              nullptr);
  };
  report("fwd library", probe::median_us(lib_fwd), 2);
  report("bwd library + column sums", probe::median_us([&] {
           launch_group_norm_backward(f32, dy, x, mean, rstd, w, dx_ref, dw, db, partial, kRows,
                                      kGroups, kPer, kSpatial, nullptr);
         }),
         3);
  report("bwd library kernel alone", probe::median_us([&] {
           launch_group_norm_backward(f32, dy, x, mean, rstd, w, dx_ref, nullptr, nullptr, partial,
                                      kRows, kGroups, kPer, kSpatial, nullptr);
         }),
         3);
  report("fwd + bwd library", probe::median_us([&] {
           lib_fwd();
           launch_group_norm_backward(f32, dy, x, mean, rstd, w, dx_ref, dw, db, partial, kRows,
                                      kGroups, kPer, kSpatial, nullptr);
         }),
         5);
  unrolled_variant<4>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  unrolled_variant<8>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<8, 1>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<8, 4>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<8, 8>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<4, 4>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<16, 2>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  staged_variant<16, 4>(x, w, b, dy, y, dx, mean, rstd, partial, y_ref, dx_ref);
  return 0;
}

// Variants of the row-norm kernels (layer norm, bfloat16, 65536 x 768) timed against the
// library's own (Note [Fused row normalization kernels]) and a copy, on a GPU machine:
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I. tools/norm_probe.cu \
//     -o /tmp/norm_probe && /tmp/norm_probe
// It includes kernels/normalization.cu, so it reaches that file's kernels and launchers; each
// variant's result is compared with the library's (max difference). A measuring tool, not part
// of the build.
#include "kernels/normalization.cu"
#include "tools/probe_helpers.cuh"

#include <cstdio>
#include <vector>

using namespace genesis::kernels;
using genesis::kernels::norm_rows::Pack;

using T = __nv_bfloat16;
using C = float;
constexpr int V = 8;
using P = Pack<T, V>;

template <int Warps>
__device__ __forceinline__ C warp_sum(C a) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) a += __shfl_xor_sync(0xffffffffu, a, d);
  return a;
}

// F1: one warp a row, Warps warps a block, grid-stride over row groups; K packs a lane.
template <int Warps, int K>
__global__ void __launch_bounds__(Warps * 32)
    fwd_warp(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
             T* __restrict__ y, C* __restrict__ mean, C* __restrict__ rstd, int64_t rows,
             int64_t cols, C eps) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  P pw[K], pb[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    pw[k] = reinterpret_cast<const P*>(w)[lane + 32 * k];
    pb[k] = reinterpret_cast<const P*>(b)[lane + 32 * k];
  }
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * Warps + warp; r < rows;
       r += static_cast<int64_t>(gridDim.x) * Warps) {
    const P* row = reinterpret_cast<const P*>(x + r * cols);
    P px[K];
    C s = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      px[k] = row[lane + 32 * k];
#pragma unroll
      for (int j = 0; j < V; ++j) s += convert<C>(px[k].v[j]);
    }
    s = warp_sum<Warps>(s);
    C mu = s / C(cols), d2 = 0;
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
      for (int j = 0; j < V; ++j) {
        C d = convert<C>(px[k].v[j]) - mu;
        d2 += d * d;
      }
    d2 = warp_sum<Warps>(d2);
    C rs = rsqrtf(d2 / C(cols) + eps);
    if (lane == 0) {
      mean[r] = mu;
      rstd[r] = rs;
    }
    P* out = reinterpret_cast<P*>(y + r * cols);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      P o;
#pragma unroll
      for (int j = 0; j < V; ++j)
        o.v[j] = convert<T>((convert<C>(px[k].v[j]) - mu) * rs * convert<C>(pw[k].v[j]) +
                            convert<C>(pb[k].v[j]));
      out[lane + 32 * k] = o;
    }
  }
}

// F2: the library's forward kernel for 32-thread rows (norm_forward_regs<T, C, 32, 3, false>)
// copied with one difference at a time, to find what its 87.7 us (H100, session 38) spends over
// F1's 73.4: Guards (the p < packs tests), Exact (1/sqrtf against rsqrtf), Pair (block_sum2's
// two shuffled sums against one), Wide (64-bit pack indices).
template <bool Guards, bool Exact, bool Pair, bool Wide>
__global__ void __launch_bounds__(256)
    fwd_lib(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
            T* __restrict__ y, C* __restrict__ mean, C* __restrict__ rstd, int64_t rows,
            int64_t cols, C eps) {
  constexpr int K = 3;
  using I = std::conditional_t<Wide, int64_t, int>;
  const I packs = static_cast<I>(cols / V);
  const int t = static_cast<int>(threadIdx.x) % 32;
  P pw[K], pb[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    I p = t + static_cast<I>(k) * 32;
    if (!Guards || p < packs) {
      pw[k] = reinterpret_cast<const P*>(w)[p];
      pb[k] = reinterpret_cast<const P*>(b)[p];
    }
  }
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * 8 + threadIdx.x / 32; r < rows;
       r += static_cast<int64_t>(gridDim.x) * 8) {
    const P* row = reinterpret_cast<const P*>(x + r * cols);
    P px[K];
    C s = 0, unused = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      I p = t + static_cast<I>(k) * 32;
      if (!Guards || p < packs) {
        px[k] = row[p];
#pragma unroll
        for (int j = 0; j < V; ++j) s += convert<C>(px[k].v[j]);
      }
    }
    if (Pair) {
      norm_rows::block_sum2<32>(s, unused);
    } else {
      s = warp_sum<8>(s);
    }
    C mu = s / C(cols), d2 = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      I p = t + static_cast<I>(k) * 32;
      if (!Guards || p < packs) {
#pragma unroll
        for (int j = 0; j < V; ++j) {
          C d = convert<C>(px[k].v[j]) - mu;
          d2 += d * d;
        }
      }
    }
    if (Pair) {
      unused = 0;
      norm_rows::block_sum2<32>(d2, unused);
    } else {
      d2 = warp_sum<8>(d2);
    }
    C rs = Exact ? 1.0f / sqrtf(d2 / C(cols) + eps) : rsqrtf(d2 / C(cols) + eps);
    if (t == 0) {
      mean[r] = mu;
      rstd[r] = rs;
    }
    P* out = reinterpret_cast<P*>(y + r * cols);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      I p = t + static_cast<I>(k) * 32;
      if (!Guards || p < packs) {
        P o;
#pragma unroll
        for (int j = 0; j < V; ++j)
          o.v[j] = convert<T>((convert<C>(px[k].v[j]) - mu) * rs * convert<C>(pw[k].v[j]) +
                              convert<C>(pb[k].v[j]));
        out[p] = o;
      }
    }
  }
}

// B2: the library's backward layout (Threads threads of one pack) taking R rows an iteration.
template <int Threads, int R>
__global__ void __launch_bounds__(Threads)
    bwd_rows(const T* __restrict__ dy, const T* __restrict__ x, const C* __restrict__ mean,
             const C* __restrict__ rstd, const T* __restrict__ w, T* __restrict__ dx,
             C* __restrict__ partial, int64_t rows, int64_t cols) {
  int64_t p = threadIdx.x;
  P pw = reinterpret_cast<const P*>(w)[p];
  C dw[V], db[V];
#pragma unroll
  for (int j = 0; j < V; ++j) dw[j] = db[j] = 0;
  C n = C(cols);
  constexpr int kWarps = Threads / 32;
  __shared__ C part[2 * R][kWarps];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int64_t r0 = static_cast<int64_t>(blockIdx.x) * R; r0 < rows;
       r0 += static_cast<int64_t>(gridDim.x) * R) {
    P px[R], pg[R];
    C mu[R], rs[R], dot[R], avg[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      int64_t r = min(r0 + i, rows - 1);
      px[i] = reinterpret_cast<const P*>(x + r * cols)[p];
      pg[i] = reinterpret_cast<const P*>(dy + r * cols)[p];
      mu[i] = mean[r];
      rs[i] = rstd[r];
    }
#pragma unroll
    for (int i = 0; i < R; ++i) {
      bool live = r0 + i < rows;
      dot[i] = avg[i] = 0;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        C xh = (convert<C>(px[i].v[j]) - mu[i]) * rs[i], gy = convert<C>(pg[i].v[j]);
        if (live) {
          dw[j] += gy * xh;
          db[j] += gy;
        }
        C g = gy * convert<C>(pw.v[j]);
        dot[i] += g * xh;
        avg[i] += g;
      }
    }
#pragma unroll
    for (int i = 0; i < R; ++i) {
      dot[i] = warp_sum<1>(dot[i]);
      avg[i] = warp_sum<1>(avg[i]);
    }
    if constexpr (kWarps > 1) {
      __syncthreads();
      if (lane == 0)
#pragma unroll
        for (int i = 0; i < R; ++i) {
          part[2 * i][warp] = dot[i];
          part[2 * i + 1][warp] = avg[i];
        }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < R; ++i) {
        dot[i] = avg[i] = 0;
#pragma unroll
        for (int k = 0; k < kWarps; ++k) {
          dot[i] += part[2 * i][k];
          avg[i] += part[2 * i + 1][k];
        }
      }
    }
#pragma unroll
    for (int i = 0; i < R; ++i) {
      if (r0 + i >= rows) break;
      C d = dot[i] / n, a = avg[i] / n;
      P o;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        C xh = (convert<C>(px[i].v[j]) - mu[i]) * rs[i];
        o.v[j] = convert<T>(rs[i] * (convert<C>(pg[i].v[j]) * convert<C>(pw.v[j]) - a - xh * d));
      }
      reinterpret_cast<P*>(dx + (r0 + i) * cols)[p] = o;
    }
  }
  C* pw_out = partial + static_cast<int64_t>(blockIdx.x) * cols;
  C* pb_out = partial + (static_cast<int64_t>(gridDim.x) + blockIdx.x) * cols;
#pragma unroll
  for (int j = 0; j < V; ++j) {
    pw_out[p * V + j] = dw[j];
    pb_out[p * V + j] = db[j];
  }
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    cudaEventCreate(&a);
    cudaEventCreate(&b);
  }
  template <typename F>
  float us(F f, int reps = 30) {
    std::vector<float> t;
    for (int i = 0; i < 3; ++i) f();
    for (int i = 0; i < reps; ++i) {
      cudaEventRecord(a);
      f();
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

__global__ void copy_k(const int4* s, int4* d, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    d[i] = s[i];
}

// Four 16-byte loads in flight per thread before the stores: the stronger reference.
__global__ void copy4_k(const int4* __restrict__ s, int4* __restrict__ d, int64_t n) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  for (; i + 3 * step < n; i += 4 * step) {
    int4 a = s[i], b = s[i + step], c = s[i + 2 * step], e = s[i + 3 * step];
    d[i] = a;
    d[i + step] = b;
    d[i + 2 * step] = c;
    d[i + 3 * step] = e;
  }
  for (; i < n; i += step) d[i] = s[i];
}

__global__ void init_k(T* p, int64_t n, unsigned seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;
    p[i] = __float2bfloat16((h % 20000) / 10000.0f - 1.0f);
  }
}

template <typename K>
int occupancy(K k, int threads) {
  int n = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, threads, 0);
  return n;
}

float maxdiff(const T* a, const T* b, int64_t n) {
  std::vector<T> ha(n), hb(n);
  cudaMemcpy(ha.data(), a, n * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), b, n * 2, cudaMemcpyDeviceToHost);
  float m = 0;
  for (int64_t i = 0; i < n; ++i)
    m = std::max(m, std::fabs(__bfloat162float(ha[i]) - __bfloat162float(hb[i])));
  return m;
}

int main() {
  const int64_t rows = 65536, cols = 768, n = rows * cols;
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  T *x, *dy, *w, *b, *y, *y2, *dx, *dx2, *dwo, *dbo;
  C *mean, *rstd, *part;
  CK(cudaMalloc(&x, n * 2));
  CK(cudaMalloc(&dy, n * 2));
  CK(cudaMalloc(&y, n * 2));
  CK(cudaMalloc(&y2, n * 2));
  CK(cudaMalloc(&dx, n * 2));
  CK(cudaMalloc(&dx2, n * 2));
  CK(cudaMalloc(&w, cols * 2));
  CK(cudaMalloc(&b, cols * 2));
  CK(cudaMalloc(&dwo, cols * 2));
  CK(cudaMalloc(&dbo, cols * 2));
  CK(cudaMalloc(&mean, rows * 4));
  CK(cudaMalloc(&rstd, rows * 4));
  CK(cudaMalloc(&part, 2 * 4096 * cols * 4));
  init_k<<<1024, 256>>>(x, n, 1);
  init_k<<<1024, 256>>>(dy, n, 2);
  init_k<<<8, 256>>>(w, cols, 3);
  init_k<<<8, 256>>>(b, cols, 4);
  CK(cudaDeviceSynchronize());
  Timer t;
  double fbytes = 2.0 * n * 2, bbytes = 3.0 * n * 2;
  float c = t.us([&] { copy_k<<<sms * 8, 512>>>((const int4*)x, (int4*)y2, n * 2 / 16); });
  printf("copy 100.7 MB: %.1f us (%.2f TB/s); SMs %d\n", c, fbytes / c / 1e6, sms);
  float c4 = t.us([&] { copy4_k<<<sms * 4, 512>>>((const int4*)x, (int4*)y2, n * 2 / 16); });
  printf("copy, 4 loads in flight a thread: %.1f us (%.2f TB/s)\n", c4, fbytes / c4 / 1e6);
  float cm = t.us([&] { cudaMemcpyAsync(y2, x, n * 2, cudaMemcpyDeviceToDevice); });
  printf("cudaMemcpy device to device: %.1f us (%.2f TB/s)\n", cm, fbytes / cm / 1e6);
  auto rep = [&](const char* name, float us, double bytes) {
    printf("  %-44s %7.1f us %5.2f TB/s\n", name, us, bytes / us / 1e6);
  };
  // forward
  float f0 = t.us([&] {
    launch_row_norm_forward(kBFloat16, x, w, b, y, mean, rstd, rows, cols, 1e-5, false, 0);
  });
  rep("fwd library (32 thr x 3 packs, grid rows)", f0, fbytes);
#define FWD(W, G)                                                                                  \
  {                                                                                                \
    auto k = fwd_warp<W, 3>;                                                                       \
    int occ = occupancy(k, W * 32);                                                                \
    unsigned grid =                                                                                \
        G ? (unsigned)std::min<int64_t>(rows / W, (int64_t)occ * sms) : (unsigned)(rows / W);      \
    float us = t.us([&] { k<<<grid, W * 32>>>(x, w, b, y2, mean, rstd, rows, cols, 1e-5f); });     \
    char name[96];                                                                                 \
    snprintf(name, sizeof name, "fwd warp/row %d warps %s (occ %d)", W, G ? "persistent" : "grid", \
             occ);                                                                                 \
    rep(name, us, fbytes);                                                                         \
    printf("    max diff %.3g\n", maxdiff(y, y2, n));                                              \
  }
  for (int full = 0; full < 2; ++full) {  // the library's kernel launched directly (F2's base)
    float us = t.us([&] {
      if (full)
        norm_forward_regs<T, C, 32, 3, false, true>
            <<<(unsigned)(rows / 8), 256>>>(x, w, b, y2, mean, rstd, rows, cols, 1e-5f);
      else
        norm_forward_regs<T, C, 32, 3, false, false>
            <<<(unsigned)(rows / 8), 256>>>(x, w, b, y2, mean, rstd, rows, cols, 1e-5f);
    });
    rep(full ? "fwd library kernel, whole rows (Full)" : "fwd library kernel, guarded", us, fbytes);
    printf("    max diff %.3g\n", maxdiff(y, y2, n));
  }
#define LIB(G, E, P2, W64)                                                                       \
  {                                                                                              \
    float us = t.us([&] {                                                                        \
      fwd_lib<G, E, P2, W64>                                                                     \
          <<<(unsigned)(rows / 8), 256>>>(x, w, b, y2, mean, rstd, rows, cols, 1e-5f);           \
    });                                                                                          \
    char name[96];                                                                               \
    snprintf(name, sizeof name, "fwd library copy guards %d exact %d pair %d wide %d", G, E, P2, \
             W64);                                                                               \
    rep(name, us, fbytes);                                                                       \
    printf("    max diff %.3g\n", maxdiff(y, y2, n));                                            \
  }
  LIB(1, 1, 1, 1);
  LIB(0, 1, 1, 1);
  LIB(1, 0, 1, 1);
  LIB(1, 1, 0, 1);
  LIB(1, 1, 1, 0);
  LIB(0, 0, 0, 0);
  FWD(1, 0);
  FWD(2, 0);
  FWD(4, 0);
  FWD(8, 0);
  FWD(4, 1);
  FWD(8, 1);
  FWD(16, 1);
  // backward
  int64_t blocks =
      row_norm_backward_blocks(kBFloat16, kBFloat16, dy, x, w, dx, nullptr, rows, cols, false, sms);
  float b0 = t.us([&] {
    launch_row_norm_backward(kBFloat16, kBFloat16, dy, x, mean, rstd, w, dx, nullptr, dwo, dbo,
                             part, blocks, rows, cols, false, 0);
  });
  rep("bwd library + column sums", b0, bbytes);
  printf("    blocks %ld\n", (long)blocks);
  float ba = t.us([&] {  // Note [A gradient summed where it is made]: dx2 read as the addend
    launch_row_norm_backward(kBFloat16, kBFloat16, dy, x, mean, rstd, w, dx, dx2, dwo, dbo, part,
                             blocks, rows, cols, false, 0);
  });
  rep("bwd library + column sums, adding a gradient", ba, bbytes + 2.0 * n);
  float bk = t.us([&] {
    norm_backward_regs<T, T, C, 96, 1, 1, false>
        <<<(unsigned)blocks, 96>>>(dy, x, mean, rstd, w, dx, nullptr, part, rows, cols);
  });
  rep("bwd library kernel alone", bk, bbytes);
  float cs = t.us([&] { norm_rows::launch_column_sums(part, blocks, cols, dwo, 0); });
  printf("  one column sum launch: %.1f us\n", cs);
#define BWD(TH, R, PER)                                                                            \
  {                                                                                                \
    auto k = bwd_rows<TH, R>;                                                                      \
    int occ = occupancy(k, TH);                                                                    \
    int64_t g = std::min<int64_t>((int64_t)occ * sms * PER, 4096);                                 \
    float us = t.us([&] { k<<<(unsigned)g, TH>>>(dy, x, mean, rstd, w, dx2, part, rows, cols); }); \
    char name[96];                                                                                 \
    snprintf(name, sizeof name, "bwd %d thr %d rows/iter grid %ld (occ %d)", TH, R, (long)g, occ); \
    rep(name, us, bbytes);                                                                         \
    printf("    max diff dx %.3g\n", maxdiff(dx, dx2, n));                                         \
  }
  BWD(96, 1, 1);
  BWD(96, 2, 1);
  BWD(96, 4, 1);
  BWD(96, 2, 2);
  BWD(96, 1, 2);
  CK(cudaDeviceSynchronize());
  return 0;
}

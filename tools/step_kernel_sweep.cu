// A measurement tool, not part of the library: times genesis's multi-tensor AdamW kernel
// (kernels/optimizer_step.cu, included whole) against variants of it and against the plain
// streaming ceiling, over issue 46's shape (124M float32 parameters in 210 tensors, GPT-2
// small), with CUDA events. Build and run on the GPU machine:
//   nvcc -std=c++17 -arch=sm_90 -O3 --expt-relaxed-constexpr -I csrc -I . \
//        tools/step_kernel_sweep.cu -o /tmp/sweep && /tmp/sweep
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernels/optimizer_step.cu"

using namespace genesis;
using namespace genesis::kernels;

#define CHECK(x)                                                            \
  do {                                                                      \
    cudaError_t e = (x);                                                    \
    if (e != cudaSuccess) {                                                 \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

struct Table {
  static constexpr int kMax = 224;
  int tensors;
  int64_t first_chunk[kMax + 1];
  int64_t numel[kMax];
  float* p[kMax];
  const float* g[kMax];
  float* m[kMax];
  float* v[kMax];
};

struct Adam {
  float shrink, one_minus_beta1, beta2, one_minus_beta2, eps, neg_step, bc2;
  __device__ __forceinline__ void operator()(float& p, float g, float& m, float& v) const {
    p = p * shrink;
    m = one_minus_beta1 < 0.5f ? m + one_minus_beta1 * (g - m)
                               : g - (g - m) * (1.f - one_minus_beta1);
    v = v * beta2 + one_minus_beta2 * g * g;
    float denom = sqrtf(v) / bc2 + eps;
    p = p + neg_step * (m / denom);
  }
};

template <bool kStream>
__device__ __forceinline__ float4 load(const float* a) {
  if constexpr (kStream)
    return __ldcs(reinterpret_cast<const float4*>(a));
  else
    return *reinterpret_cast<const float4*>(a);
}
template <bool kStream>
__device__ __forceinline__ void store(float* a, float4 x) {
  if constexpr (kStream)
    __stcs(reinterpret_cast<float4*>(a), x);
  else
    *reinterpret_cast<float4*>(a) = x;
}

__device__ __forceinline__ void apply(const Adam& u, float4& p, float4 g, float4& m, float4& v) {
  u(p.x, g.x, m.x, v.x);
  u(p.y, g.y, m.y, v.y);
  u(p.z, g.z, m.z, v.z);
  u(p.w, g.w, m.w, v.w);
}

// One float4 pack of each operand at `at`: loaded, stepped, stored.
template <bool kStream>
__device__ __forceinline__ void step_pack4(const Adam& u, float* p, const float* g, float* m,
                                           float* v, int64_t at) {
  float4 pp = load<kStream>(p + at), gg = load<kStream>(g + at), mm = load<kStream>(m + at),
         vv = load<kStream>(v + at);
  apply(u, pp, gg, mm, vv);
  store<kStream>(p + at, pp);
  store<kStream>(m + at, mm);
  store<kStream>(v + at, vv);
}

// Multi-tensor variant: kUnroll float4 packs per thread per iteration, all loads first.
template <int kThreads, int64_t kChunk, int kUnroll, bool kStream>
__global__ void __launch_bounds__(kThreads) mt_adam(const __grid_constant__ Table table, Adam u) {
  const int64_t chunk = blockIdx.x;
  const int t = chunk_owner(table.first_chunk, table.tensors, chunk);
  const int64_t begin = (chunk - table.first_chunk[t]) * kChunk;
  const int64_t rest = table.numel[t] - begin;
  const int64_t n = rest < kChunk ? rest : kChunk;
  float* __restrict__ p = table.p[t] + begin;
  const float* __restrict__ g = table.g[t] + begin;
  float* __restrict__ m = table.m[t] + begin;
  float* __restrict__ v = table.v[t] + begin;
  const int64_t packed = n / 4 * 4;
  constexpr int64_t kStride = int64_t{kThreads} * 4;
  int64_t at = int64_t{threadIdx.x} * 4;
  for (; at + (kUnroll - 1) * kStride < packed; at += kUnroll * kStride) {
    float4 pp[kUnroll], gg[kUnroll], mm[kUnroll], vv[kUnroll];
#pragma unroll
    for (int i = 0; i < kUnroll; ++i) {
      int64_t a = at + i * kStride;
      pp[i] = load<kStream>(p + a);
      gg[i] = load<kStream>(g + a);
      mm[i] = load<kStream>(m + a);
      vv[i] = load<kStream>(v + a);
    }
#pragma unroll
    for (int i = 0; i < kUnroll; ++i) {
      int64_t a = at + i * kStride;
      apply(u, pp[i], gg[i], mm[i], vv[i]);
      store<kStream>(p + a, pp[i]);
      store<kStream>(m + a, mm[i]);
      store<kStream>(v + a, vv[i]);
    }
  }
  for (; at < packed; at += kStride) {
    step_pack4<kStream>(u, p, g, m, v, at);
  }
  for (int64_t e = packed + threadIdx.x; e < n; e += kThreads) u(p[e], g[e], m[e], v[e]);
}

// The ceiling: one flat buffer per operand, grid-stride, the same bytes moved.
template <bool kStream>
__global__ void flat_adam(float* __restrict__ p, const float* __restrict__ g, float* __restrict__ m,
                          float* __restrict__ v, int64_t n, Adam u) {
  for (int64_t at = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) * 4; at < n;
       at += int64_t{gridDim.x} * blockDim.x * 4) {
    step_pack4<kStream>(u, p, g, m, v, at);
  }
}

template <typename F>
float time_ms(F f, int reps = 20) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const int64_t d = 768;
  std::vector<int64_t> sizes = {50257 * d, 1024 * d};
  for (int l = 0; l < 12; ++l)
    for (int64_t s : {d, d, d * 3 * d, 3 * d, d * d, d, d, d, d * 4 * d, 4 * d, 4 * d * d, d})
      sizes.push_back(s);
  sizes.push_back(d);
  sizes.push_back(d);
  while (sizes.size() < 210) sizes.push_back(d);
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  std::vector<float*> ptr[4];
  for (int k = 0; k < 4; ++k)
    for (int64_t s : sizes) {
      float* x;
      CHECK(cudaMalloc(&x, s * 4));
      CHECK(cudaMemset(x, 0, s * 4));
      ptr[k].push_back(x);
    }
  const double bytes = 28.0 * total;
  Adam u{0.9999f, 0.1f, 0.999f, 0.001f, 1e-8f, -1e-3f, 0.03f};
  auto report = [&](const char* name, float ms) {
    std::printf("%-44s %7.3f ms  %6.0f GB/s\n", name, ms, bytes / ms / 1e6);
  };
  std::printf("%lld params in %zu tensors\n", (long long)total, sizes.size());

  {  // genesis's kernel, as cuda/optimizer_step.cpp fills its table
    StepTable table;
    table.states = 3;
    table.first_chunk[0] = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      table.numel[i] = sizes[i];
      table.first_chunk[i + 1] = table.first_chunk[i] + (sizes[i] + kStepChunk - 1) / kStepChunk;
      table.data[0][i] = ptr[0][i];
      table.data[1][i] = ptr[1][i];
      table.data[2][i] = ptr[2][i];
      table.data[3][i] = ptr[3][i];
      table.data[4][i] = nullptr;
      table.data[5][i] = nullptr;
      table.factors[i] = {1e-3 / 0.1, 0.03, 0};
    }
    table.tensors = static_cast<int>(sizes.size());
    AdamRule rule{1e-3, 0.9, 0.999, 1e-8, 0.1, true, false, false};
    report("genesis kernel (256 thr, 16K chunk)",
           time_ms([&] { launch_adam_step(table, rule, kFloat32, kFloat32, nullptr); }));
  }
  auto mt = [&](const char* name, auto kernel, int threads, int64_t chunk) {
    Table table;
    table.first_chunk[0] = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      table.numel[i] = sizes[i];
      table.first_chunk[i + 1] = table.first_chunk[i] + (sizes[i] + chunk - 1) / chunk;
      table.p[i] = ptr[0][i];
      table.g[i] = ptr[1][i];
      table.m[i] = ptr[2][i];
      table.v[i] = ptr[3][i];
    }
    table.tensors = static_cast<int>(sizes.size());
    unsigned blocks = static_cast<unsigned>(table.first_chunk[table.tensors]);
    report(name, time_ms([&] { kernel<<<blocks, threads>>>(table, u); }));
  };
  mt("mt 256 thr 16K chunk x1", mt_adam<256, 16384, 1, false>, 256, 16384);
  mt("mt 256 thr 16K chunk x1 streaming", mt_adam<256, 16384, 1, true>, 256, 16384);
  mt("mt 256 thr 16K chunk x2", mt_adam<256, 16384, 2, false>, 256, 16384);
  mt("mt 256 thr 16K chunk x2 streaming", mt_adam<256, 16384, 2, true>, 256, 16384);
  mt("mt 256 thr 32K chunk x2", mt_adam<256, 32768, 2, false>, 256, 32768);
  mt("mt 512 thr 64K chunk x1", mt_adam<512, 65536, 1, false>, 512, 65536);
  mt("mt 512 thr 64K chunk x2", mt_adam<512, 65536, 2, false>, 512, 65536);
  mt("mt 512 thr 64K chunk x4", mt_adam<512, 65536, 4, false>, 512, 65536);
  mt("mt 128 thr 8K chunk x2", mt_adam<128, 8192, 2, false>, 128, 8192);
  mt("mt 128 thr 8K chunk x4", mt_adam<128, 8192, 4, false>, 128, 8192);
  mt("mt 256 thr 64K chunk x4 streaming", mt_adam<256, 65536, 4, true>, 256, 65536);

  float* flat[4];
  for (int k = 0; k < 4; ++k) {
    CHECK(cudaMalloc(&flat[k], total * 4));
    CHECK(cudaMemset(flat[k], 0, total * 4));
  }
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (int per_sm : {4, 8, 16, 64}) {
    char name[64];
    std::snprintf(name, sizeof name, "flat ceiling 256 thr, %d blocks/SM", per_sm);
    report(name, time_ms([&] {
             flat_adam<false>
                 <<<sms * per_sm, 256>>>(flat[0], flat[1], flat[2], flat[3], total / 4 * 4, u);
           }));
  }
  report("flat ceiling streaming 8 blocks/SM", time_ms([&] {
           flat_adam<true><<<sms * 8, 256>>>(flat[0], flat[1], flat[2], flat[3], total / 4 * 4, u);
         }));
  return 0;
}

// GradScaler's ops on CUDA (Note [Gradient scaling] in ops/grad_scaling.cpp): one launch
// unscales a table of gradients (chunked as the optimizer steps, Note [Multi-tensor steps]),
// and one thread updates the scale.
#include <cuda_runtime.h>

#include "kernels/dtype_traits.cuh"
#include "kernels/grad_scaling.cuh"
#include "kernels/multi_tensor.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

// Unscales V elements at g + at; true when one of them was not finite.
template <typename T, typename C, int V>
__device__ __forceinline__ bool unscale_pack(T* g, int64_t at, C inv) {
  using P = Pack<T, V>;
  P pack = *reinterpret_cast<const P*>(g + at);
  bool bad = false;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    C v = convert<C>(pack.v[e]);
    bad |= !isfinite(v);
    pack.v[e] = convert<T>(v * inv);
  }
  *reinterpret_cast<P*>(g + at) = pack;
  return bad;
}

template <typename T, typename C>
__global__ void __launch_bounds__(kThreads)
    multi_tensor_unscale(const __grid_constant__ ScaleTable table, float* found_inf,
                         const float* inv_scale) {
  const int64_t chunk = blockIdx.x;
  const int t = chunk_owner(table.first_chunk, table.tensors, chunk);
  const int64_t begin = (chunk - table.first_chunk[t]) * kScaleChunk;
  const int64_t rest = table.numel[t] - begin;
  const int64_t n = rest < kScaleChunk ? rest : kScaleChunk;
  T* g = static_cast<T*>(table.data[t]) + begin;
  const C inv = static_cast<C>(*inv_scale);
  constexpr int V = 16 / sizeof(T);
  const int64_t packed = reinterpret_cast<uintptr_t>(g) % 16 == 0 ? n / V * V : 0;
  bool bad = false;
  for (int64_t at = int64_t{threadIdx.x} * V; at < packed; at += int64_t{kThreads} * V)
    bad |= unscale_pack<T, C, V>(g, at, inv);
  for (int64_t at = packed + threadIdx.x; at < n; at += kThreads)
    bad |= unscale_pack<T, C, 1>(g, at, inv);
  // Every writer writes the same 1.0, so the blocks need no ordering.
  if (__syncthreads_or(bad) && threadIdx.x == 0) *found_inf = 1.0f;
}

__global__ void update_scale(float* scale, int32_t* growth_tracker, const float* found_inf,
                             double growth_factor, double backoff_factor, int growth_interval) {
  if (*found_inf != 0.0f) {
    *scale = static_cast<float>(*scale * backoff_factor);
    *growth_tracker = 0;
    return;
  }
  int32_t successful = *growth_tracker + 1;
  if (successful == growth_interval) {
    auto grown = static_cast<float>(*scale * growth_factor);
    if (isfinite(grown)) *scale = grown;
    *growth_tracker = 0;
  } else {
    *growth_tracker = successful;
  }
}

}  // namespace

void launch_unscale(const ScaleTable& table, int dtype, float* found_inf, const float* inv_scale,
                    void* stream) {
  unsigned blocks = static_cast<unsigned>(table.first_chunk[table.tensors]);
  if (blocks == 0) return;
  auto go = [&](auto t, auto c) {
    multi_tensor_unscale<decltype(t), decltype(c)>
        <<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(table, found_inf, inv_scale);
  };
  switch (dtype) {
    case kFloat16:
      return go(__half{}, float{});
    case kBFloat16:
      return go(__nv_bfloat16{}, float{});
    case kFloat32:
      return go(float{}, float{});
    default:
      return go(double{}, double{});
  }
}

void launch_update_scale(float* scale, int32_t* growth_tracker, const float* found_inf,
                         double growth_factor, double backoff_factor, int growth_interval,
                         void* stream) {
  update_scale<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(
      scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
}

}  // namespace genesis::kernels

#pragma once
// Note [CUDA reductions]
//  - inner (the reduced elements are contiguous, inner == 1): a warp per row for short rows,
//    a block per row otherwise, 16-byte vector loads when the rows are aligned;
//  - outer (inner > 1): a thread per output column walks the reduced dim, neighbouring threads
//    read neighbouring columns, so every load is coalesced;
//  - when that leaves the GPU idle (few outputs), the reduced dim is cut into chunks whose
//    partial accumulators go to a workspace, and a final kernel combines them in chunk order.
#include <cuda_runtime.h>

#include <cstring>

#include "kernels/dtype_traits.cuh"
#include "kernels/elementwise_loops.cuh"
#include "kernels/reduce.cuh"

namespace genesis::kernels {

constexpr int kReduceThreads = 256;

template <typename Acc>
__device__ __forceinline__ Acc shuffle_down(Acc v, int delta) {
  constexpr int kWords = (sizeof(Acc) + 3) / 4;
  unsigned int words[kWords] = {};
  memcpy(words, &v, sizeof(Acc));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = __shfl_down_sync(0xffffffffu, words[w], delta);
  Acc r;
  memcpy(&r, words, sizeof(Acc));
  return r;
}

template <typename Red>
__device__ __forceinline__ typename Red::Acc warp_reduce(typename Red::Acc acc) {
#pragma unroll
  for (int delta = 16; delta > 0; delta >>= 1) acc = Red::combine(acc, shuffle_down(acc, delta));
  return acc;
}

// The whole block's accumulators combined; the result is valid in thread 0.
template <typename Red>
__device__ __forceinline__ typename Red::Acc block_reduce(typename Red::Acc acc) {
  using Acc = typename Red::Acc;
  __shared__ Acc partial[kReduceThreads / 32];
  acc = warp_reduce<Red>(acc);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < kReduceThreads / 32 ? partial[lane] : Red::identity();
    acc = warp_reduce<Red>(acc);
  }
  return acc;
}

template <typename Red, typename T>
struct ReduceArgs {
  using Acc = typename Red::Acc;
  const T* in;
  T* out;
  T* out_max;
  int64_t* out_index;
  const T* center;
  int64_t outer, reduce, inner;
  int64_t chunks, chunk_len;
  Acc* workspace;
  ops::ReduceFinish finish;
};

template <typename C>
struct is_value_index : std::false_type {};
template <typename C>
struct is_value_index<ops::ValueIndex<C>> : std::true_type {};
template <typename C>
struct is_low_high : std::false_type {};
template <typename C>
struct is_low_high<ops::LowHigh<C>> : std::true_type {};

template <typename Red, typename T>
__device__ __forceinline__ void store_result(const ReduceArgs<Red, T>& a, int64_t j,
                                             typename Red::Acc acc) {
  using Acc = typename Red::Acc;
  if constexpr (is_value_index<Acc>::value) {
    a.out_index[j] = acc.i;
    if (a.out != nullptr) a.out[j] = convert<T>(acc.v);
  } else if constexpr (is_low_high<Acc>::value) {
    a.out[j] = convert<T>(acc.lo);
    a.out_max[j] = convert<T>(acc.hi);
  } else {
    if constexpr (std::is_floating_point_v<Acc>) {
      if (a.finish.divide) acc = acc / static_cast<Acc>(a.finish.divisor);
      if (a.finish.sqrt) acc = ops::math::m_sqrt(acc);
    }
    a.out[j] = convert<T>(acc);
  }
}

// Stores a finished result, or the chunk's partial accumulator.
template <typename Red, typename T>
__device__ __forceinline__ void store_or_stage(const ReduceArgs<Red, T>& a, int64_t j, int64_t c,
                                               typename Red::Acc acc) {
  if (a.chunks == 1)
    store_result(a, j, acc);
  else
    a.workspace[c * a.outer * a.inner + j] = acc;
}

// Programmatic dependent launch (Note [Reduction chunks] in reduce_sum.cu): a chunk kernel's
// thread says its partial is stored; the final kernel waits for every block's word before it
// reads the partials. Both are no-ops where the launch was a plain one.
__device__ __forceinline__ void partials_stored() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

__device__ __forceinline__ void wait_for_partials() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

template <typename Red, typename T>
__device__ __forceinline__ typename Red::Acc load_one(const ReduceArgs<Red, T>& a, int64_t index,
                                                      int64_t k, int64_t j) {
  using C = compute_t<T>;
  C v = convert<C>(a.in[index]);
  if constexpr (std::is_floating_point_v<C>)
    if (a.center != nullptr) v = v - convert<C>(a.center[j]);
  return Red::load(v, k);
}

// inner == 1: kRowThreads threads (a warp or the block) per row; V-wide loads when kVec.
template <typename Red, typename T, int kRowThreads, int V>
__global__ void reduce_inner_kernel(ReduceArgs<Red, T> a) {
  using Acc = typename Red::Acc;
  constexpr int kRowsPerBlock = kReduceThreads / kRowThreads;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kRowThreads;
  const int lane = threadIdx.x % kRowThreads;
  const int64_t c = blockIdx.y;
  const int64_t begin = c * a.chunk_len;
  const int64_t end = begin + a.chunk_len < a.reduce ? begin + a.chunk_len : a.reduce;
  Acc acc = Red::identity();
  if (row < a.outer) {
    const int64_t base = row * a.reduce;
    if constexpr (V > 1) {
      // chunk_len and reduce are whole vectors here (run_reduce checks before choosing V).
      const Vector<T, V>* vin = reinterpret_cast<const Vector<T, V>*>(a.in + base);
      using C = compute_t<T>;
      auto take = [&](Acc& into, const Vector<T, V>& x, int64_t v) {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          C val = convert<C>(x.v[e]);
          if constexpr (std::is_floating_point_v<C>)
            if (a.center != nullptr) val = val - convert<C>(a.center[row]);
          into = Red::combine(into, Red::load(val, v * V + e));
        }
      };
      // Four independent loads in flight per thread: one is not enough to cover the latency.
      constexpr int kUnroll = 4;
      Acc part[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) part[u] = Red::identity();
      int64_t v = begin / V + lane;
      const int64_t v_end = end / V;
      for (; v + (kUnroll - 1) * kRowThreads < v_end; v += kUnroll * kRowThreads) {
        Vector<T, V> x[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) x[u] = vin[v + u * kRowThreads];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) take(part[u], x[u], v + u * kRowThreads);
      }
      for (; v < v_end; v += kRowThreads) take(part[0], vin[v], v);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc = Red::combine(acc, part[u]);
    } else {
      for (int64_t k = begin + lane; k < end; k += kRowThreads)
        acc = Red::combine(acc, load_one(a, base + k, k, row));
    }
  }
  if constexpr (kRowThreads == 32) {
    acc = warp_reduce<Red>(acc);
    if (lane == 0 && row < a.outer) store_or_stage(a, row, c, acc);
  } else {
    acc = block_reduce<Red>(acc);
    if (threadIdx.x == 0 && row < a.outer) store_or_stage(a, row, c, acc);
  }
  partials_stored();
}

// inner > 1: one thread per output (o, i), walking its chunk of the reduced dim.
template <typename Red, typename T>
__global__ void reduce_outer_kernel(ReduceArgs<Red, T> a) {
  using Acc = typename Red::Acc;
  const int64_t outputs = a.outer * a.inner;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kReduceThreads + threadIdx.x;
  if (j >= outputs) return;
  const int64_t o = j / a.inner, i = j % a.inner;
  const int64_t c = blockIdx.y;
  const int64_t begin = c * a.chunk_len;
  const int64_t end = begin + a.chunk_len < a.reduce ? begin + a.chunk_len : a.reduce;
  Acc acc = Red::identity();
  const int64_t base = o * a.reduce * a.inner + i;
  for (int64_t k = begin; k < end; ++k)
    acc = Red::combine(acc, load_one(a, base + k * a.inner, k, j));
  store_or_stage(a, j, c, acc);
  partials_stored();
}

template <typename Red, typename T>
__global__ void reduce_final_kernel(ReduceArgs<Red, T> a) {
  using Acc = typename Red::Acc;
  const int64_t outputs = a.outer * a.inner;
  wait_for_partials();
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * kReduceThreads + threadIdx.x; j < outputs;
       j += static_cast<int64_t>(gridDim.x) * kReduceThreads) {
    Acc acc = Red::identity();
    for (int64_t c = 0; c < a.chunks; ++c) acc = Red::combine(acc, a.workspace[c * outputs + j]);
    store_result(a, j, acc);
  }
}

// Few outputs with many partials each (a full reduction): a block per output, so the
// partials are read in parallel rather than by one thread in a chain of dependent loads.
template <typename Red, typename T>
__global__ void reduce_final_block_kernel(ReduceArgs<Red, T> a) {
  using Acc = typename Red::Acc;
  const int64_t outputs = a.outer * a.inner;
  const int64_t j = blockIdx.x;
  wait_for_partials();
  Acc acc = Red::identity();
  for (int64_t c = threadIdx.x; c < a.chunks; c += kReduceThreads)
    acc = Red::combine(acc, a.workspace[c * outputs + j]);
  acc = block_reduce<Red>(acc);
  if (threadIdx.x == 0) store_result(a, j, acc);
}

inline unsigned grid_x(int64_t blocks) {
  return static_cast<unsigned>(blocks > 0 ? (blocks < 2147483647 ? blocks : 2147483647) : 1);
}

// The final kernel after the chunks' one: a programmatic dependent launch where the device has
// it (Note [Reduction chunks] in reduce_sum.cu), else a plain one.
template <typename Red, typename T>
void launch_final(void (*kernel)(ReduceArgs<Red, T>), unsigned blocks, const ReduceArgs<Red, T>& a,
                  bool programmatic, cudaStream_t stream) {
  if (!programmatic) {
    kernel<<<blocks, kReduceThreads, 0, stream>>>(a);
    return;
  }
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kReduceThreads);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, kernel, a);  // an error shows in the caller's cudaGetLastError
}

template <typename Red, typename T>
void run_reduce(const ReduceLaunch& l, cudaStream_t stream) {
  using Acc = typename Red::Acc;
  ReduceArgs<Red, T> a{static_cast<const T*>(l.in),
                       static_cast<T*>(l.out),
                       static_cast<T*>(l.out_max),
                       l.out_index,
                       static_cast<const T*>(l.center),
                       l.shape.outer,
                       l.shape.reduce,
                       l.shape.inner,
                       l.chunks,
                       l.chunk_len,
                       static_cast<Acc*>(l.workspace),
                       l.finish};
  const int64_t outputs = l.shape.outputs();
  const dim3 chunks_dim(1, static_cast<unsigned>(l.chunks));
  if (l.shape.inner == 1) {
    constexpr int V = 16 / sizeof(T) >= 1 ? 16 / sizeof(T) : 1;
    bool vec = V > 1 && l.shape.reduce % V == 0 && l.chunk_len % V == 0 && aligned_to(l.in, 16);
    if (l.shape.reduce <= 512) {
      dim3 grid(grid_x((outputs + 7) / 8), static_cast<unsigned>(l.chunks));
      reduce_inner_kernel<Red, T, 32, 1><<<grid, kReduceThreads, 0, stream>>>(a);
    } else {
      dim3 grid(grid_x(outputs), static_cast<unsigned>(l.chunks));
      if (vec)
        reduce_inner_kernel<Red, T, kReduceThreads, V><<<grid, kReduceThreads, 0, stream>>>(a);
      else
        reduce_inner_kernel<Red, T, kReduceThreads, 1><<<grid, kReduceThreads, 0, stream>>>(a);
    }
  } else {
    dim3 grid(grid_x((outputs + kReduceThreads - 1) / kReduceThreads),
              static_cast<unsigned>(l.chunks));
    reduce_outer_kernel<Red, T><<<grid, kReduceThreads, 0, stream>>>(a);
  }
  (void)chunks_dim;
  if (l.chunks > 1 && outputs <= 1024 && l.chunks >= 64) {
    launch_final(reduce_final_block_kernel<Red, T>, grid_x(outputs), a, l.programmatic_final,
                 stream);
  } else if (l.chunks > 1) {
    int64_t blocks = (outputs + kReduceThreads - 1) / kReduceThreads;
    launch_final(reduce_final_kernel<Red, T>, grid_x(blocks < 65536 ? blocks : 65536), a,
                 l.programmatic_final, stream);
  }
}

}  // namespace genesis::kernels

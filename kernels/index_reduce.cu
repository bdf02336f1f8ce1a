// The accumulating scatters (Note [Accumulating scatters] in vocab/scatter_reduce.h): each value
// combines into its destination element atomically, so duplicate indices all count.
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

#include "kernels/dtype_traits.cuh"
#include "kernels/index.cuh"
#include "kernels/index_loops.cuh"
#include "vocab/scatter_reduce.h"

namespace genesis::kernels {

namespace {

using ops::ScatterReduce;

template <typename T>
using compute_of =
    std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float, T>;

template <ScatterReduce R, typename T>
__device__ __forceinline__ T combine(T a, T b) {
  using C = compute_of<T>;
  return convert<T>(ops::scatter_combine<R, C>(convert<C>(a), convert<C>(b)));
}

template <typename W, typename T>
__device__ __forceinline__ W bits_of(T v) {
  W w = 0;
  memcpy(&w, &v, sizeof(T));
  return w;
}
template <typename T, typename W>
__device__ __forceinline__ T value_of(W w) {
  T v;
  memcpy(&v, &w, sizeof(T));
  return v;
}

// Note [Atomic combine]: *addr = combine(*addr, v) atomically. A compare-and-swap loop on the
// element's own 4 or 8 bytes, or for 1- and 2-byte elements on the aligned 4-byte word that
// holds them (an element never straddles one; the word lies inside the allocation, whose
// granularity is far larger). Sums use the hardware's atomicAdd where it exists for the type,
// and integer max/min its atomicMax/atomicMin.
template <ScatterReduce R, typename T>
__device__ __forceinline__ void atomic_cas_combine(T* addr, T v) {
  if constexpr (sizeof(T) == 8 || sizeof(T) == 4) {
    using W = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned int>;
    W* word = reinterpret_cast<W*>(addr);
    W old = *word, assumed;
    do {
      assumed = old;
      W next = bits_of<W>(combine<R>(value_of<T>(assumed), v));
      if (next == assumed) return;
      old = atomicCAS(word, assumed, next);
    } while (old != assumed);
  } else {
    auto address = reinterpret_cast<uintptr_t>(addr);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    const unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    using B = std::conditional_t<sizeof(T) == 1, unsigned char, unsigned short>;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      T cur = value_of<T>(static_cast<B>((assumed & mask) >> shift));
      unsigned next =
          (assumed & ~mask) | (static_cast<unsigned>(bits_of<B>(combine<R>(cur, v))) << shift);
      if (next == assumed) return;
      old = atomicCAS(word, assumed, next);
    } while (old != assumed);
  }
}

// Note [Paired 16-bit atomics]: a 16-bit float adds into its aligned 4-byte pair with the
// 2-wide atomic (its neighbour gets -0.0, which leaves every value as it is, -0.0 too; a NaN
// neighbour stays NaN). The 2-wide add is what the memory system does natively; the 16-bit
// atomicAdd measured 497 us against PyTorch's 264 us (paired, as here) for 2^24 float16 items
// into 2^24 (H200). The pair lies inside the allocation, whose granularity is far larger.
template <typename Pair, typename T>
__device__ __forceinline__ void atomic_add_in_pair(T* addr, T v) {
  const auto address = reinterpret_cast<uintptr_t>(addr);
  Pair* pair = reinterpret_cast<Pair*>(address & ~uintptr_t{3});
  const T keep = convert<T>(-0.0f);
  atomicAdd(pair, (address & 2) == 0 ? Pair{v, keep} : Pair{keep, v});
}

template <ScatterReduce R, typename T>
__device__ __forceinline__ void atomic_combine(T* addr, T v) {
  if constexpr (R == ScatterReduce::Sum) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, int32_t>) {
      atomicAdd(addr, v);
      return;
    } else if constexpr (std::is_same_v<T, int64_t>) {
      // Two's complement: the unsigned sum wraps as the signed one should.
      atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
      return;
    } else if constexpr (std::is_same_v<T, __half>) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
      atomic_add_in_pair<__half2>(addr, v);
      return;
#endif
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
      atomic_add_in_pair<__nv_bfloat162>(addr, v);
      return;
#endif
    }
  } else if constexpr (R == ScatterReduce::Max || R == ScatterReduce::Min) {
    if constexpr (std::is_same_v<T, int32_t>) {
      if constexpr (R == ScatterReduce::Max)
        atomicMax(addr, v);
      else
        atomicMin(addr, v);
      return;
    } else if constexpr (std::is_same_v<T, int64_t>) {
      auto* a = reinterpret_cast<long long*>(addr);
      if constexpr (R == ScatterReduce::Max)
        atomicMax(a, static_cast<long long>(v));
      else
        atomicMin(a, static_cast<long long>(v));
      return;
    }
  }
  atomic_cas_combine<R>(addr, v);
}

// Operands: values, dst, and either int64 byte offsets (kIndex false) or one int64 index along
// a dim of `size` elements `byte_stride` apart (kIndex true: wrapped, out-of-range ones skipped);
// poisoned offsets skipped (Note [Poisoned offsets]), nothing written when `error` records this
// launch's error (Note [Fused scatter] in index.cu).
template <typename T, ScatterReduce R, bool kIndex>
__global__ void scatter_reduce_kernel(const char* values, char* dst, const char* where, int64_t n,
                                      Geometry g, int64_t size, int64_t byte_stride,
                                      IndexSite error) {
  if (own_error(error)) return;  // this op's check recorded an error: write nothing
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    int64_t o = *reinterpret_cast<const int64_t*>(where + off[2]);
    if constexpr (kIndex) {
      if (!in_range(o, size)) continue;  // recorded by the check already
      if (o < 0) o += size;
      o *= byte_stride;
    } else if (poisoned(o)) {
      continue;  // an out-of-range index: never written
    }
    T v = *reinterpret_cast<const T*>(values + off[0]);
    atomic_combine<R>(reinterpret_cast<T*>(dst + off[1] + o), v);
  }
}

// Note [Vector scatter sums]
// index_add_ and the other sums along a dim by index move whole rows: the innermost dim is
// contiguous in the values and the destination and the index is the same all along it. Such
// a sum of floats takes V items per thread with one vector atomic add (float4 on sm_90,
// __half2 and __nv_bfloat162 from sm_60/sm_80): a quarter (a half) of the atomic operations
// and of the offset arithmetic, and 16-byte (4-byte) loads. The launcher checks that every
// vector is aligned (the bases, each dim's stride and the index's byte stride multiples of
// the vector) and otherwise takes the item-at-a-time kernel.
template <typename T>
struct VectorSum {
  static constexpr int V = 1;
};
template <>
struct VectorSum<float> {
  static constexpr int V = 4;
  using Vec = float4;
};
template <>
struct VectorSum<__half> {
  static constexpr int V = 2;
  using Vec = __half2;
};
template <>
struct VectorSum<__nv_bfloat16> {
  static constexpr int V = 2;
  using Vec = __nv_bfloat162;
};

template <typename T>
__device__ __forceinline__ void atomic_add_vector(typename VectorSum<T>::Vec* addr,
                                                  typename VectorSum<T>::Vec v) {
  if constexpr (std::is_same_v<T, float>) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd(addr, v);
#else
    float* f = reinterpret_cast<float*>(addr);
    atomicAdd(f, v.x);
    atomicAdd(f + 1, v.y);
    atomicAdd(f + 2, v.z);
    atomicAdd(f + 3, v.w);
#endif
  } else if constexpr (std::is_same_v<T, __half>) {
    atomicAdd(addr, v);
  } else {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    atomicAdd(addr, v);
#else
    T* e = reinterpret_cast<T*>(addr);
    atomic_cas_combine<ScatterReduce::Sum>(e, v.x);
    atomic_cas_combine<ScatterReduce::Sum>(e + 1, v.y);
#endif
  }
}

// scatter_reduce_kernel<T, Sum, true> over vectors: `g` counts vectors in its innermost dim.
template <typename T>
__global__ void scatter_add_vectors_kernel(const char* values, char* dst, const char* where,
                                           int64_t n, Geometry g, int64_t size, int64_t byte_stride,
                                           IndexSite error) {
  using Vec = typename VectorSum<T>::Vec;
  if (own_error(error)) return;  // this op's check recorded an error: write nothing
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    int64_t o = *reinterpret_cast<const int64_t*>(where + off[2]);
    if (!in_range(o, size)) continue;  // recorded by the check already
    if (o < 0) o += size;
    Vec v = *reinterpret_cast<const Vec*>(values + off[0]);
    atomic_add_vector<T>(reinterpret_cast<Vec*>(dst + off[1] + o * byte_stride), v);
  }
}

// The vector form of `g` (Note [Vector scatter sums]), or false when a vector could straddle.
template <typename T>
bool vector_geometry(const char* values, const char* dst, const Geometry& g, int64_t byte_stride,
                     Geometry* out) {
  constexpr int V = VectorSum<T>::V;
  constexpr int64_t bytes = V * static_cast<int64_t>(sizeof(T));
  if (V == 1 || g.ndim < 1 || g.sizes[0] % V != 0 || g.strides[0][0] != sizeof(T) ||
      g.strides[1][0] != sizeof(T) || g.strides[2][0] != 0 || byte_stride % bytes != 0 ||
      reinterpret_cast<uintptr_t>(values) % bytes != 0 ||
      reinterpret_cast<uintptr_t>(dst) % bytes != 0)
    return false;
  for (int d = 1; d < g.ndim; ++d)
    if (g.strides[0][d] % bytes != 0 || g.strides[1][d] % bytes != 0) return false;
  *out = g;
  out->sizes[0] = g.sizes[0] / V;
  out->numel = g.numel / V;
  out->strides[0][0] = out->strides[1][0] = bytes;
  out->contiguous = false;
  return true;
}

template <typename T, ScatterReduce R>
void launch_typed(const char* values, char* dst, const char* where, int64_t n, const Geometry& g,
                  bool by_index, int64_t size, int64_t byte_stride, IndexSite error,
                  cudaStream_t s) {
  if constexpr (R == ScatterReduce::Sum && VectorSum<T>::V > 1) {
    Geometry vectors;
    if (by_index && vector_geometry<T>(values, dst, g, byte_stride, &vectors)) {
      scatter_add_vectors_kernel<T><<<grid_for(vectors.numel), kThreads, 0, s>>>(
          values, dst, where, vectors.numel, vectors, size, byte_stride, error);
      return;
    }
  }
  if (by_index)
    scatter_reduce_kernel<T, R, true>
        <<<grid_for(n), kThreads, 0, s>>>(values, dst, where, n, g, size, byte_stride, error);
  else
    scatter_reduce_kernel<T, R, false>
        <<<grid_for(n), kThreads, 0, s>>>(values, dst, where, n, g, size, byte_stride, error);
}

}  // namespace

void launch_scatter_reduce(const char* values, char* dst, const char* where, int64_t numel,
                           const Geometry& g, int dtype, ops::ScatterReduce reduce, bool by_index,
                           int64_t size, int64_t byte_stride, IndexSite error, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    ops::visit_scatter_reduce(reduce, [&](auto r) {
      launch_typed<T, decltype(r)::value>(values, dst, where, numel, g, by_index, size, byte_stride,
                                          error, s);
    });
  });
}

}  // namespace genesis::kernels

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
      atomicAdd(addr, v);
      return;
#endif
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
      atomicAdd(addr, v);
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

template <typename T, ScatterReduce R>
void launch_typed(const char* values, char* dst, const char* where, int64_t n, const Geometry& g,
                  bool by_index, int64_t size, int64_t byte_stride, IndexSite error,
                  cudaStream_t s) {
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

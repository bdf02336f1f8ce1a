#pragma once
// Note [Elementwise kernels]
// Two loops serve every elementwise op; a Body (one per op family) says what one element does.
//  - contiguous_kernel: every tensor operand dense and aligned: each thread moves vectors of up
//    to 16 bytes per operand (Body::vec), the tail goes one element at a time (Body::one);
//  - strided_kernel: anything else after the loop planner merged dims: runs of kRun
//    consecutive innermost elements per thread, the outer dims unravelled once per run, in
//    32-bit arithmetic when every offset fits (Body::at gets byte offsets per operand).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/dtype_traits.cuh"
#include "kernels/elementwise.cuh"

namespace genesis::kernels {

template <typename T>
struct compute_type {
  using type = T;
};
template <>
struct compute_type<__half> {
  using type = float;
};
template <>
struct compute_type<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename compute_type<T>::type;

template <typename C>
C scalar_as(const ops::ScalarArg& s) {
  return s.is_float ? static_cast<C>(s.d) : static_cast<C>(s.i);
}

template <typename T, int V>
struct alignas(sizeof(T) * V) Vector {
  T v[V];
};

constexpr int kLoopThreads = 256;
constexpr int kRun = 4;

inline int loop_blocks(int64_t items) {
  int64_t b = (items + kLoopThreads - 1) / kLoopThreads;
  return static_cast<int>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

template <int V, typename Body>
__global__ void contiguous_kernel(int64_t n, Body body) {
  const int64_t n_vec = n / V;
  const int64_t tid = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = tid; i < n_vec; i += step) body.template vec<V>(i);
  if (tid < n - n_vec * V) body.one(n_vec * V + tid);
}

template <typename Index, int N>
struct StridedGeometry {
  int ndim;
  Index sizes[kMaxLoopDims];
  Index strides[N][kMaxLoopDims];
};

template <typename Index, int N, typename Body>
__global__ void strided_kernel(int64_t items, StridedGeometry<Index, N> g, Body body) {
  const Index cols = g.sizes[0];
  const Index runs_per_row = (cols + kRun - 1) / kRun;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < items;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Index row = static_cast<Index>(w / runs_per_row);
    const Index col0 = static_cast<Index>(w % runs_per_row) * kRun;
    Index base[N] = {};
#pragma unroll
    for (int d = 1; d < kMaxLoopDims; ++d) {
      if (d >= g.ndim) break;
      Index idx = row % g.sizes[d];
      row /= g.sizes[d];
#pragma unroll
      for (int k = 0; k < N; ++k) base[k] += idx * g.strides[k][d];
    }
#pragma unroll
    for (int r = 0; r < kRun; ++r) {
      Index col = col0 + r;
      if (col < cols) {
        Index off[N];
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] = base[k] + col * g.strides[k][0];
        body.at(off);
      }
    }
  }
}

// Picks the loop for a geometry: the vector loop when it is flat and every pointer is aligned
// to a whole vector, else the strided loop.
template <int N, int V, typename Body>
void run_loop(const LoopGeometry& g, bool aligned, const Body& body, cudaStream_t stream) {
  if (g.numel == 0) return;
  if (g.contiguous && aligned) {
    int64_t items = g.numel / V > 0 ? g.numel / V : 1;
    contiguous_kernel<V, Body><<<loop_blocks(items), kLoopThreads, 0, stream>>>(g.numel, body);
    return;
  }
  bool small = g.numel < (int64_t{1} << 31);
  for (int k = 0; k < N && small; ++k) {
    int64_t reach = 0;
    for (int d = 0; d < g.ndim; ++d) {
      small = small && g.strides[k][d] >= 0;
      reach += (g.sizes[d] - 1) * g.strides[k][d];
    }
    small = small && reach < (int64_t{1} << 31);
  }
  int64_t rows = g.numel / g.sizes[0];
  int64_t items = rows * ((g.sizes[0] + kRun - 1) / kRun);
  auto launch = [&](auto index_tag) {
    using Index = decltype(index_tag);
    StridedGeometry<Index, N> sg{};
    sg.ndim = g.ndim;
    for (int d = 0; d < g.ndim; ++d) {
      sg.sizes[d] = static_cast<Index>(g.sizes[d]);
      for (int k = 0; k < N; ++k) sg.strides[k][d] = static_cast<Index>(g.strides[k][d]);
    }
    strided_kernel<Index, N, Body>
        <<<loop_blocks(items), kLoopThreads, 0, stream>>>(items, sg, body);
  };
  if (small)
    launch(uint32_t{});
  else
    launch(int64_t{});
}

inline bool aligned_to(const void* p, int bytes) {
  return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(bytes) == 0;
}

// Vector width: 16 bytes of the widest operand type.
template <typename T, typename R>
constexpr int vector_width() {
  constexpr int widest = sizeof(T) > sizeof(R) ? sizeof(T) : sizeof(R);
  return 16 / widest;
}

// out = Op(a, b) computed in compute_t<T>, stored as R (T, or bool for comparisons).
template <typename Op, typename T, typename R>
struct BinaryBody {
  using C = compute_t<T>;
  R* out;
  const T* a;
  const T* b;
  C av, bv;
  bool a_scalar, b_scalar;

  template <int V>
  __device__ __forceinline__ void vec(int64_t i) const {
    Vector<T, V> va, vb;
    if (!a_scalar) va = reinterpret_cast<const Vector<T, V>*>(a)[i];
    if (!b_scalar) vb = reinterpret_cast<const Vector<T, V>*>(b)[i];
    Vector<R, V> vo;
#pragma unroll
    for (int k = 0; k < V; ++k)
      vo.v[k] = convert<R>(
          Op{}(a_scalar ? av : convert<C>(va.v[k]), b_scalar ? bv : convert<C>(vb.v[k])));
    reinterpret_cast<Vector<R, V>*>(out)[i] = vo;
  }
  __device__ __forceinline__ void one(int64_t i) const {
    out[i] = convert<R>(Op{}(a_scalar ? av : convert<C>(a[i]), b_scalar ? bv : convert<C>(b[i])));
  }
  template <typename Index>
  __device__ __forceinline__ void at(const Index* o) const {
    C x = a_scalar
              ? av
              : convert<C>(*reinterpret_cast<const T*>(reinterpret_cast<const char*>(a) + o[1]));
    C y = b_scalar
              ? bv
              : convert<C>(*reinterpret_cast<const T*>(reinterpret_cast<const char*>(b) + o[2]));
    *reinterpret_cast<R*>(reinterpret_cast<char*>(out) + o[0]) = convert<R>(Op{}(x, y));
  }
};

template <typename Op, typename T, typename R>
void launch_binary_typed(void* out, const void* a, const void* b, const ops::ScalarArg& sa,
                         const ops::ScalarArg& sb, const LoopGeometry& g, cudaStream_t stream) {
  using C = compute_t<T>;
  constexpr int V = vector_width<T, R>();
  BinaryBody<Op, T, R> body{static_cast<R*>(out),
                            static_cast<const T*>(a),
                            static_cast<const T*>(b),
                            sa.is_scalar ? scalar_as<C>(sa) : C(),
                            sb.is_scalar ? scalar_as<C>(sb) : C(),
                            sa.is_scalar,
                            sb.is_scalar};
  bool aligned = aligned_to(out, sizeof(R) * V) && (sa.is_scalar || aligned_to(a, sizeof(T) * V)) &&
                 (sb.is_scalar || aligned_to(b, sizeof(T) * V));
  run_loop<3, V>(g, aligned, body, stream);
}

}  // namespace genesis::kernels

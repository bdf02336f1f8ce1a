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

#include "kernels/driver_launch.cuh"
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
  Index sizes[kMaxKernelDims];
  Index strides[N][kMaxKernelDims];
};

// Byte offsets of each operand's row `row` (the dims above the innermost one).
template <typename Index, int N>
__device__ __forceinline__ void row_offsets(const StridedGeometry<Index, N>& g, Index row,
                                            Index (&base)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) base[k] = 0;
#pragma unroll
  for (int d = 1; d < kMaxKernelDims; ++d) {
    if (d >= g.ndim) break;
    Index idx = row % g.sizes[d];
    row /= g.sizes[d];
#pragma unroll
    for (int k = 0; k < N; ++k) base[k] += idx * g.strides[k][d];
  }
}

template <typename Index, int N, typename Body>
__global__ void strided_kernel(int64_t items, StridedGeometry<Index, N> g, Body body) {
  const Index cols = g.sizes[0];
  const Index runs_per_row = (cols + kRun - 1) / kRun;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < items;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Index row = static_cast<Index>(w / runs_per_row);
    const Index col0 = static_cast<Index>(w % runs_per_row) * kRun;
    Index base[N];
    row_offsets(g, row, base);
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

// Rows whose innermost dim is dense (or constant) for every operand: each thread moves one
// V-wide vector of a row, unravelling the outer dims once per vector. This is the broadcast-row
// case (x + row), which the element-wise strided loop serves at half the bandwidth.
template <typename Index, int N, int V, typename Body>
__global__ void rows_kernel(int64_t items, StridedGeometry<Index, N> g, Body body) {
  const Index vecs_per_row = g.sizes[0] / V;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; w < items;
       w += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Index row = static_cast<Index>(w / vecs_per_row);
    const Index col = static_cast<Index>(w % vecs_per_row) * V;
    Index base[N];
    row_offsets(g, row, base);
    body.template row_vec<V>(base, col);
  }
}

// Picks the loop for a geometry: the vector loop when it is flat and every pointer is aligned
// to a whole vector, else the strided loop.
template <int N, int V, typename Body>
void run_loop(const Geometry& g, bool aligned, const Body& body, cudaStream_t stream) {
  if (g.numel == 0) return;
  if (g.contiguous && aligned) {
    int64_t items = g.numel / V > 0 ? g.numel / V : 1;
    launch_kernel<contiguous_kernel<V, Body>>(g.device, loop_blocks(items), kLoopThreads, stream,
                                              g.numel, body);  // Note [Driver launches]
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
  bool a_dense = false, b_dense = false;  // innermost stride one item (rows_kernel)

  template <int V, typename Index>
  __device__ __forceinline__ void load_row(const T* p, bool scalar, C value, bool dense,
                                           Index offset, Index col, C (&x)[V]) const {
    if (scalar) {
#pragma unroll
      for (int k = 0; k < V; ++k) x[k] = value;
    } else if (dense) {
      Vector<T, V> v = *reinterpret_cast<const Vector<T, V>*>(reinterpret_cast<const char*>(p) +
                                                              offset + col * sizeof(T));
#pragma unroll
      for (int k = 0; k < V; ++k) x[k] = convert<C>(v.v[k]);
    } else {
      C c = convert<C>(*reinterpret_cast<const T*>(reinterpret_cast<const char*>(p) + offset));
#pragma unroll
      for (int k = 0; k < V; ++k) x[k] = c;
    }
  }
  template <int V, typename Index>
  __device__ __forceinline__ void row_vec(const Index* base, Index col) const {
    C x[V], y[V];
    load_row<V>(a, a_scalar, av, a_dense, base[1], col, x);
    load_row<V>(b, b_scalar, bv, b_dense, base[2], col, y);
    Vector<R, V> vo;
#pragma unroll
    for (int k = 0; k < V; ++k) vo.v[k] = convert<R>(Op{}(x[k], y[k]));
    *reinterpret_cast<Vector<R, V>*>(reinterpret_cast<char*>(out) + base[0] + col * sizeof(R)) = vo;
  }

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

// The rows_kernel path for a binary op, when every row is dense or constant, a whole number of
// aligned vectors long, and 32-bit offsets reach everything.
template <int V, typename Op, typename T, typename R>
bool try_rows(const Geometry& g, BinaryBody<Op, T, R>& body, cudaStream_t stream) {
  if (g.ndim < 2 || g.sizes[0] % V != 0 || g.strides[0][0] != static_cast<int64_t>(sizeof(R)))
    return false;
  const void* ptr[3] = {body.out, body.a, body.b};
  const bool scalar[3] = {false, body.a_scalar, body.b_scalar};
  const int64_t item[3] = {sizeof(R), sizeof(T), sizeof(T)};
  bool dense[3] = {true, false, false};
  for (int k = 0; k < 3; ++k) {
    if (scalar[k]) continue;
    int64_t reach = 0;  // the furthest byte offset of this operand: 32-bit offsets must reach
    int64_t inner = g.strides[k][0];
    if (inner != 0 && inner != item[k]) return false;
    dense[k] = inner == item[k];
    int64_t vec_bytes = item[k] * V;
    if (dense[k] && !aligned_to(ptr[k], static_cast<int>(vec_bytes))) return false;
    for (int d = 1; d < g.ndim; ++d) {
      if (g.strides[k][d] < 0 || (dense[k] && g.strides[k][d] % vec_bytes != 0)) return false;
      reach += (g.sizes[d] - 1) * g.strides[k][d];
    }
    reach += (g.sizes[0] - 1) * inner;
    if (reach >= (int64_t{1} << 31)) return false;
  }
  if (g.numel >= (int64_t{1} << 31)) return false;
  body.a_dense = dense[1];
  body.b_dense = dense[2];
  StridedGeometry<uint32_t, 3> sg{};
  sg.ndim = g.ndim;
  for (int d = 0; d < g.ndim; ++d) {
    sg.sizes[d] = static_cast<uint32_t>(g.sizes[d]);
    for (int k = 0; k < 3; ++k) sg.strides[k][d] = static_cast<uint32_t>(g.strides[k][d]);
  }
  int64_t items = g.numel / V;
  rows_kernel<uint32_t, 3, V, BinaryBody<Op, T, R>>
      <<<loop_blocks(items), kLoopThreads, 0, stream>>>(items, sg, body);
  return true;
}

template <typename Op, typename T, typename R>
void launch_binary_typed(void* out, const void* a, const void* b, const ops::ScalarArg& sa,
                         const ops::ScalarArg& sb, const Geometry& g, cudaStream_t stream) {
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
  if (!g.contiguous && try_rows<V>(g, body, stream)) return;
  run_loop<3, V>(g, aligned, body, stream);
}

}  // namespace genesis::kernels

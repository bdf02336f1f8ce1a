// Unary ops: out = op(a) in the compute type, same dtype out as in.
#include "kernels/elementwise_loops.cuh"
#include "vocab/op_dispatch.h"

namespace genesis::kernels {

namespace {

template <typename Op, typename T>
struct UnaryBody {
  using C = compute_t<T>;
  T* out;
  const T* a;

  template <int V>
  __device__ __forceinline__ void vec(int64_t i) const {
    Vector<T, V> va = reinterpret_cast<const Vector<T, V>*>(a)[i], vo;
#pragma unroll
    for (int k = 0; k < V; ++k) vo.v[k] = convert<T>(Op{}(convert<C>(va.v[k])));
    reinterpret_cast<Vector<T, V>*>(out)[i] = vo;
  }
  __device__ __forceinline__ void one(int64_t i) const {
    out[i] = convert<T>(Op{}(convert<C>(a[i])));
  }
  template <typename Index>
  __device__ __forceinline__ void at(const Index* o) const {
    C x = convert<C>(*reinterpret_cast<const T*>(reinterpret_cast<const char*>(a) + o[1]));
    *reinterpret_cast<T*>(reinterpret_cast<char*>(out) + o[0]) = convert<T>(Op{}(x));
  }
};

}  // namespace

void launch_unary(ops::UnaryOp op, int dtype, void* out, const void* a, const Geometry& g,
                  void* stream_ptr) {
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  ops::visit_unary(op, [&](auto functor) {
    using Op = decltype(functor);
    dispatch_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (ops::unary_supports<Op, compute_t<T>>()) {
        constexpr int V = vector_width<T, T>();
        bool aligned = aligned_to(out, sizeof(T) * V) && aligned_to(a, sizeof(T) * V);
        run_loop<2, V>(g, aligned, UnaryBody<Op, T>{static_cast<T*>(out), static_cast<const T*>(a)},
                       stream);
      }
    });
  });
}

}  // namespace genesis::kernels

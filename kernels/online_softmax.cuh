#pragma once
// The running (maximum, sum of exponentials) pair of the one-pass ("online") softmax, shared by
// the fused softmax (softmax.cu) and the fused cross-entropy (cross_entropy.cu).
#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

namespace genesis::kernels {

template <typename C>
__device__ __forceinline__ C exp_of(C x) {
  if constexpr (std::is_same_v<C, double>)
    return ::exp(x);
  else
    return ::expf(x);
}

template <typename C>
__device__ __forceinline__ C log_of(C x) {
  if constexpr (std::is_same_v<C, double>)
    return ::log(x);
  else
    return ::logf(x);
}

// The running maximum and the sum of exp(x - m) over the items seen so far.
template <typename C>
struct MaxSum {
  C m = -INFINITY;
  C s = 0;

  __device__ __forceinline__ void add(C x) {
    if (x > m) {
      // exp(x - x) is 1, except for x = +inf, where the composite's inf - inf gives NaN.
      s = s * exp_of(m - x) + (isinf(x) ? C(NAN) : C(1));
      m = x;
    } else if (x != -INFINITY) {  // -inf adds 0 (and -inf - -inf would be NaN)
      s += exp_of(x - m);         // NaN x, or a second +inf, makes s NaN
    }
  }

  // V items at once, as add() would take them one by one: the pack's maximum first, then one
  // rescale and V exponentials with no branch per item, so the lanes of a warp stay together.
  template <int V>
  __device__ __forceinline__ void add_pack(const C (&v)[V]) {
    C pm = v[0];
#pragma unroll
    for (int j = 1; j < V; ++j) pm = v[j] > pm ? v[j] : pm;  // a NaN never wins: see below
    C nm = pm > m ? pm : m;
    if (nm == -INFINITY) {  // only -inf and NaN so far: a NaN makes s NaN, -inf adds 0
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (v[j] != v[j]) s = C(NAN);
      return;
    }
    C sum = 0;
#pragma unroll
    for (int j = 0; j < V; ++j) sum += exp_of(v[j] - nm);  // -inf adds 0; NaN, +inf - +inf: NaN
    s = s * exp_of(m - nm) + sum;
    m = nm;
  }

  __device__ __forceinline__ void merge(C om, C os) {
    C nm = om > m ? om : m;
    if (nm == -INFINITY) return;  // both empty so far
    s = s * exp_of(m - nm) + os * exp_of(om - nm);
    m = nm;
  }
};

template <typename C>
__device__ __forceinline__ MaxSum<C> warp_merge(MaxSum<C> a) {
#pragma unroll
  for (int delta = 16; delta > 0; delta >>= 1) {
    C om = __shfl_xor_sync(0xffffffffu, a.m, delta);
    C os = __shfl_xor_sync(0xffffffffu, a.s, delta);
    a.merge(om, os);
  }
  return a;
}

}  // namespace genesis::kernels

// The fused LSTM cell (Note [Fused LSTM cell] in ops/lstm_cell.cpp): a thread an item of the
// hidden state, reading its four gates; the activations are ops::math's functors, as the eager
// ops compute them, and 16-bit values are rounded where the eager ops would store them.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/dtype_traits.cuh"
#include "kernels/lstm_cell.cuh"
#include "vocab/math_functors.h"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

// v rounded to the storage type and back.
template <typename T, typename C>
__device__ __forceinline__ C stored(C v) {
  return convert<C>(convert<T>(v));
}

template <typename T, typename C>
__global__ void __launch_bounds__(kThreads)
    lstm_cell_forward(const T* __restrict__ gi, const T* __restrict__ gh, const T* __restrict__ c,
                      T* __restrict__ h, T* __restrict__ c_new, T* __restrict__ act, int64_t rows,
                      int64_t hidden) {
  int64_t items = rows * hidden;
  for (int64_t k = blockIdx.x * int64_t{kThreads} + threadIdx.x; k < items;
       k += int64_t{gridDim.x} * kThreads) {
    int64_t r = k / hidden, j = k - r * hidden, at = r * 4 * hidden + j;
    C gate[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      C pre = convert<C>(gi[at + q * hidden]) + convert<C>(gh[at + q * hidden]);
      C v = q == 2 ? ops::math::Tanh{}(pre) : ops::math::Sigmoid{}(pre);
      act[at + q * hidden] = convert<T>(v);
      gate[q] = stored<T>(v);
    }
    T cell = convert<T>(gate[1] * convert<C>(c[k]) + gate[0] * gate[2]);
    c_new[k] = cell;
    h[k] = convert<T>(gate[3] * stored<T>(ops::math::Tanh{}(convert<C>(cell))));
  }
}

template <typename T, typename C>
__global__ void __launch_bounds__(kThreads)
    lstm_cell_backward(const T* __restrict__ dh, const T* __restrict__ dc,
                       const T* __restrict__ act, const T* __restrict__ c,
                       const T* __restrict__ c_new, T* __restrict__ dgates, T* __restrict__ dc_prev,
                       int64_t rows, int64_t hidden) {
  int64_t items = rows * hidden;
  for (int64_t k = blockIdx.x * int64_t{kThreads} + threadIdx.x; k < items;
       k += int64_t{gridDim.x} * kThreads) {
    int64_t r = k / hidden, j = k - r * hidden, at = r * 4 * hidden + j;
    C i = convert<C>(act[at]), f = convert<C>(act[at + hidden]);
    C g = convert<C>(act[at + 2 * hidden]), o = convert<C>(act[at + 3 * hidden]);
    C t = stored<T>(ops::math::Tanh{}(convert<C>(c_new[k])));
    C dhk = dh ? convert<C>(dh[k]) : C(0);
    C dct = (dc ? convert<C>(dc[k]) : C(0)) + dhk * o * (C(1) - t * t);
    dgates[at] = convert<T>(dct * g * i * (C(1) - i));
    dgates[at + hidden] = convert<T>(dct * convert<C>(c[k]) * f * (C(1) - f));
    dgates[at + 2 * hidden] = convert<T>(dct * i * (C(1) - g * g));
    dgates[at + 3 * hidden] = convert<T>(dhk * t * o * (C(1) - o));
    dc_prev[k] = convert<T>(dct * f);
  }
}

unsigned blocks_for(int64_t items) {
  return static_cast<unsigned>(std::min<int64_t>((items + kThreads - 1) / kThreads, 1 << 20));
}

}  // namespace

void launch_lstm_cell_forward(int dtype, const void* gi, const void* gh, const void* c, void* h,
                              void* c_new, void* act, int64_t rows, int64_t hidden, void* stream) {
  if (rows * hidden == 0) return;
  dispatch_floating(dtype, [&](auto t, auto cc) {
    using T = decltype(t);
    lstm_cell_forward<T, decltype(cc)>
        <<<blocks_for(rows * hidden), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<const T*>(gi), static_cast<const T*>(gh), static_cast<const T*>(c),
            static_cast<T*>(h), static_cast<T*>(c_new), static_cast<T*>(act), rows, hidden);
  });
}

void launch_lstm_cell_backward(int dtype, const void* dh, const void* dc, const void* act,
                               const void* c, const void* c_new, void* dgates, void* dc_prev,
                               int64_t rows, int64_t hidden, void* stream) {
  if (rows * hidden == 0) return;
  dispatch_floating(dtype, [&](auto t, auto cc) {
    using T = decltype(t);
    lstm_cell_backward<T, decltype(cc)>
        <<<blocks_for(rows * hidden), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<const T*>(dh), static_cast<const T*>(dc), static_cast<const T*>(act),
            static_cast<const T*>(c), static_cast<const T*>(c_new), static_cast<T*>(dgates),
            static_cast<T*>(dc_prev), rows, hidden);
  });
}

}  // namespace genesis::kernels

#include "cpu/lstm_cell.h"

#include <algorithm>
#include <type_traits>

#include "cpu/float_kernels.h"
#include "cpu/parallel.h"
#include "cpu/vector_math.h"
#include "vocab/math_functors.h"

namespace genesis::cpu {

namespace {

constexpr int64_t kChunk = 256;  // items of a row's gates taken at once (in the compute type)

// v[k] = sigmoid(v[k]) as ops::math::Sigmoid computes it, 1 / (1 + exp(-x)), with the vector exp
// where the CPU has it.
template <typename C>
void sigmoid_run(C* v, int64_t n) {
  if constexpr (std::is_same_v<C, float>) {
    if (sigmoid_f32_simd(v, v, n)) return;
  }
  for (int64_t k = 0; k < n; ++k) v[k] = ops::math::Sigmoid{}(v[k]);
}

template <typename C>
void tanh_run(C* v, int64_t n) {
  if constexpr (std::is_same_v<C, float>) {
    if (tanh_f32_simd(v, v, n)) return;
  }
  for (int64_t k = 0; k < n; ++k) v[k] = ops::math::Tanh{}(v[k]);
}

// Rounded to the storage type and back: what a later read of the stored value gives.
template <typename T, typename C>
C stored(C v) {
  return widen<C>(static_cast<T>(v));
}

int64_t grain_rows(int64_t hidden) { return std::max<int64_t>(1, kDefaultGrain / (8 * hidden)); }

template <typename T, typename C>
void forward_typed(const T* gi, const T* gh, const T* c, T* h, T* c_new, T* act, int64_t rows,
                   int64_t hidden) {
  parallel_for(rows, grain_rows(hidden), [&](int64_t r0, int64_t r1) {
    C gate[4][kChunk], cell[kChunk];
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j0 = 0; j0 < hidden; j0 += kChunk) {
        int64_t n = std::min(kChunk, hidden - j0);
        for (int k = 0; k < 4; ++k) {
          int64_t at = r * 4 * hidden + k * hidden + j0;
          for (int64_t j = 0; j < n; ++j) gate[k][j] = widen<C>(gi[at + j]) + widen<C>(gh[at + j]);
        }
        sigmoid_run(gate[0], n);
        sigmoid_run(gate[1], n);
        tanh_run(gate[2], n);
        sigmoid_run(gate[3], n);
        if constexpr (!std::is_same_v<T, C>)  // 16-bit: the activations as stored
          for (int k = 0; k < 4; ++k)
            for (int64_t j = 0; j < n; ++j) gate[k][j] = stored<T>(gate[k][j]);
        int64_t at = r * hidden + j0;
        for (int64_t j = 0; j < n; ++j) {
          T v = static_cast<T>(gate[1][j] * widen<C>(c[at + j]) + gate[0][j] * gate[2][j]);
          c_new[at + j] = v;
          cell[j] = widen<C>(v);
        }
        tanh_run(cell, n);
        for (int64_t j = 0; j < n; ++j) h[at + j] = static_cast<T>(gate[3][j] * stored<T>(cell[j]));
        for (int k = 0; k < 4; ++k) {
          T* out = act + r * 4 * hidden + k * hidden + j0;
          for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(gate[k][j]);
        }
      }
  });
}

template <typename T, typename C>
void backward_typed(const T* dh, const T* dc, const T* act, const T* c, const T* c_new, T* dgates,
                    T* dc_prev, int64_t rows, int64_t hidden) {
  parallel_for(rows, grain_rows(hidden), [&](int64_t r0, int64_t r1) {
    C tc[kChunk];
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j0 = 0; j0 < hidden; j0 += kChunk) {
        int64_t n = std::min(kChunk, hidden - j0);
        int64_t at = r * hidden + j0, gates = r * 4 * hidden + j0;
        for (int64_t j = 0; j < n; ++j) tc[j] = widen<C>(c_new[at + j]);
        tanh_run(tc, n);
        for (int64_t j = 0; j < n; ++j) {
          C i = widen<C>(act[gates + j]), f = widen<C>(act[gates + hidden + j]);
          C g = widen<C>(act[gates + 2 * hidden + j]), o = widen<C>(act[gates + 3 * hidden + j]);
          C t = stored<T>(tc[j]);
          C dhj = dh ? widen<C>(dh[at + j]) : C(0);
          C dct = (dc ? widen<C>(dc[at + j]) : C(0)) + dhj * o * (C(1) - t * t);
          dgates[gates + j] = static_cast<T>(dct * g * i * (C(1) - i));
          dgates[gates + hidden + j] = static_cast<T>(dct * widen<C>(c[at + j]) * f * (C(1) - f));
          dgates[gates + 2 * hidden + j] = static_cast<T>(dct * i * (C(1) - g * g));
          dgates[gates + 3 * hidden + j] = static_cast<T>(dhj * t * o * (C(1) - o));
          dc_prev[at + j] = static_cast<T>(dct * f);
        }
      }
  });
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_as<T>() : nullptr;
}

}  // namespace

void lstm_cell_forward(const Tensor& gi, const Tensor& gh, const Tensor& c, const Tensor& h,
                       const Tensor& c_new, const Tensor& act) {
  int64_t hidden = c.sizes().back(), rows = hidden > 0 ? c.numel() / hidden : 0;
  dispatch_floating(c.dtype(), "lstm_cell", [&](auto t, auto cc) {
    using T = decltype(t);
    forward_typed<T, decltype(cc)>(gi.data_as<T>(), gh.data_as<T>(), c.data_as<T>(),
                                   h.mutable_data_as<T>(), c_new.mutable_data_as<T>(),
                                   act.mutable_data_as<T>(), rows, hidden);
  });
}

void lstm_cell_backward(const Tensor& dh, const Tensor& dc, const Tensor& act, const Tensor& c,
                        const Tensor& c_new, const Tensor& dgates, const Tensor& dc_prev) {
  int64_t hidden = c.sizes().back(), rows = hidden > 0 ? c.numel() / hidden : 0;
  dispatch_floating(c.dtype(), "lstm_cell", [&](auto t, auto cc) {
    using T = decltype(t);
    backward_typed<T, decltype(cc)>(data_or_null<T>(dh), data_or_null<T>(dc), act.data_as<T>(),
                                    c.data_as<T>(), c_new.data_as<T>(), dgates.mutable_data_as<T>(),
                                    dc_prev.mutable_data_as<T>(), rows, hidden);
  });
}

}  // namespace genesis::cpu

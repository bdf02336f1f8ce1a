#include "cpu/softmax.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "cpu/float_kernels.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"
#include "cpu/vector_math.h"

namespace genesis::cpu {

// Note [CPU row softmax]: softmax over the innermost dim in blocks of rows that stay in L1:
// each row's x - max, one exp over the block, then each row's sum and one pass that scales by
// 1 / sum (as torch's CPU kernel does; a division an item cost a fifth of the time) or, for
// log_softmax, subtracts the sum's log from x - max. The ops it replaces (amax, sub, exp, sum,
// div) each walked the whole tensor and allocated one: 0.64 ms against torch's 0.28 for 8192
// rows of 128 float32 on 2 cores; this kernel 0.35. The same results as those ops up to the
// sum's order and the scaling's rounding: a NaN anywhere in a row makes the row NaN, +inf gives
// NaN (inf - inf), an all -inf row NaN. The backward is the formula's two passes a row: one
// sum, then the gradient.

namespace {

constexpr int kLanes = 16;

// The sum of n items in kLanes lanes folded as a tree: a short row's sum is otherwise mostly the
// 16 dependent adds that fold lane_sum's lanes.
template <typename C>
GENESIS_PIECE_INLINE C tree_sum(const C* x, int64_t n) {
  C lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) lane[k] += x[i + k];
  for (int k = 0; i < n; ++i, ++k) lane[k] += x[i];
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) lane[k] += lane[k + w];
  return lane[0];
}

// Rows in pieces worth a grain each (about ten operations an item).
template <typename Body>
void over_rows(int64_t rows, int64_t cols, const Body& body) {
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / (10 * std::max<int64_t>(cols, 1))), body);
}

// Rows [r0, r1) of the forward, in blocks of about kBlockItems: each row's x - max, then one
// exp over the block (a call a row cost more than its exp for short rows), then each row's sum
// and its division. log_softmax keeps x - max and takes the exp into `e`.
constexpr int64_t kBlockItems = 4096;

template <typename C>
GENESIS_PIECE_INLINE void forward_rows(const C* xs, C* ys, int64_t cols, int64_t r0, int64_t r1,
                                       bool log, C* e) {
  const int64_t block = std::max<int64_t>(1, kBlockItems / std::max<int64_t>(cols, 1));
  for (int64_t b0 = r0; b0 < r1; b0 += block) {
    const int64_t b1 = std::min(r1, b0 + block);
    for (int64_t r = b0; r < b1; ++r) {
      const C* row = xs + r * cols;
      C* out = ys + r * cols;
      const C m = row_max(row, cols);
      for (int64_t i = 0; i < cols; ++i) out[i] = row[i] - m;
    }
    C* ex = log ? e : ys + b0 * cols;
    exp_items(ex, ys + b0 * cols, (b1 - b0) * cols);
    for (int64_t r = b0; r < b1; ++r) {
      C* out = ys + r * cols;
      const C* er = ex + (r - b0) * cols;
      const C s = tree_sum(er, cols);
      if (log) {
        const C ls = std::log(s);
        for (int64_t i = 0; i < cols; ++i) out[i] -= ls;
      } else {
        const C inv = C(1) / s;
        for (int64_t i = 0; i < cols; ++i) out[i] *= inv;
      }
    }
  }
}

// Note [Norm rows per instruction set] (cpu/normalization.cpp): the row loops compiled for the
// baseline and again for AVX2 and AVX-512, chosen at run time.
#define GENESIS_SOFTMAX_ROWS(isa, attributes)                                                  \
  template <typename C>                                                                        \
  attributes void forward_rows_##isa(const C* xs, C* ys, int64_t cols, int64_t r0, int64_t r1, \
                                     bool log, C* e) {                                         \
    forward_rows<C>(xs, ys, cols, r0, r1, log, e);                                             \
  }
GENESIS_SOFTMAX_ROWS(base, )
#ifdef GENESIS_ISA_ROWS
GENESIS_SOFTMAX_ROWS(avx2, GENESIS_AVX2_ROWS)
GENESIS_SOFTMAX_ROWS(avx512, GENESIS_AVX512_ROWS)
#endif

template <typename C>
void forward_typed(const Tensor& x, const Tensor& y, bool log) {
  const int64_t cols = x.sizes().back(), rows = x.numel() / cols;
  const C* xs = x.data_as<C>();
  C* ys = y.mutable_data_as<C>();
  [[maybe_unused]] const Isa isa = cpu_isa();
  over_rows(rows, cols, [&](int64_t r0, int64_t r1) {
    std::vector<C> e(log ? static_cast<size_t>(std::max(cols, kBlockItems)) : 0);
#ifdef GENESIS_ISA_ROWS
    if (isa == Isa::Avx512) return forward_rows_avx512<C>(xs, ys, cols, r0, r1, log, e.data());
    if (isa == Isa::Avx2) return forward_rows_avx2<C>(xs, ys, cols, r0, r1, log, e.data());
#endif
    forward_rows_base<C>(xs, ys, cols, r0, r1, log, e.data());
  });
}

template <typename C>
void backward_typed(const Tensor& grad_y, const Tensor& y, const Tensor& grad_x, bool log) {
  const int64_t cols = y.sizes().back(), rows = y.numel() / cols;
  const C* gs = grad_y.data_as<C>();
  const C* ys = y.data_as<C>();
  C* dx = grad_x.mutable_data_as<C>();
  over_rows(rows, cols, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const C* g = gs + r * cols;
      const C* yr = ys + r * cols;
      C* out = dx + r * cols;
      if (log) {
        const C s = lane_sum<kLanes, C>(cols, [&](int64_t i) { return g[i]; });
        exp_items(out, yr, cols);
        for (int64_t i = 0; i < cols; ++i) out[i] = g[i] - out[i] * s;
      } else {
        const C s = lane_sum<kLanes, C>(cols, [&](int64_t i) { return g[i] * yr[i]; });
        for (int64_t i = 0; i < cols; ++i) out[i] = yr[i] * (g[i] - s);
      }
    }
  });
}

}  // namespace

void softmax_rows(const Tensor& x, const Tensor& y, bool log) {
  if (x.numel() == 0) return;
  if (x.dtype() == ScalarType::Float64) return forward_typed<double>(x, y, log);
  forward_typed<float>(x, y, log);
}

void softmax_rows_backward(const Tensor& grad_y, const Tensor& y, const Tensor& grad_x, bool log) {
  if (y.numel() == 0) return;
  if (y.dtype() == ScalarType::Float64) return backward_typed<double>(grad_y, y, grad_x, log);
  backward_typed<float>(grad_y, y, grad_x, log);
}

}  // namespace genesis::cpu

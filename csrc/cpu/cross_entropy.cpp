#include "cpu/cross_entropy.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cpu/float_kernels.h"
#include "cpu/parallel.h"
#include "cpu/vector_math.h"

namespace genesis::cpu {

namespace {

// The row's logsumexp as its maximum m and log(sum exp(x - m)), kept apart so that lse - x[t]
// can be taken as (m - x[t]) + log_s: a loss far below the logits keeps its digits.
template <typename C>
struct RowLse {
  C m, log_s;
};

// `scratch` receives exp(x - m).
template <typename C>
RowLse<C> row_logsumexp(const C* x, int64_t n, std::vector<C>& scratch) {
  C m = row_max(x, n);
  if (std::isinf(m)) {
    if (m < 0) return {m, C(0)};                         // every logit -inf
    return {std::numeric_limits<C>::quiet_NaN(), C(0)};  // inf - inf, as the composite
  }
  scratch.resize(static_cast<size_t>(n));
  C* e = scratch.data();
  for (int64_t i = 0; i < n; ++i) e[i] = x[i] - m;
  exp_items(e, e, n);
  C s = lane_sum<16, C>(n, [&](int64_t i) { return e[i]; });
  return {m, std::log(s)};
}

template <typename T, typename C>
struct Rows {
  const T* x;
  const int64_t* target;
  std::vector<C> w;  // the weight widened, empty when absent
  C total_w;
  int64_t rows, cols, ignore;
  C smoothing;

  Rows(const Tensor& logits, const Tensor& tgt, const Tensor& weight, int64_t ignore_index,
       double s)
      : x(logits.data_as<T>()),
        target(tgt.data_as<int64_t>()),
        cols(logits.sizes().back()),
        ignore(ignore_index),
        smoothing(static_cast<C>(s)) {
    rows = cols > 0 ? logits.numel() / cols : tgt.numel();
    total_w = static_cast<C>(cols);
    if (weight.defined()) {
      std::vector<C> scratch;
      const C* wv = widened<T, C>(weight.data_as<T>(), cols, scratch);
      w.assign(wv, wv + cols);
      total_w = 0;
      for (C v : w) total_w += v;
    }
  }
  C weight(int64_t c) const { return w.empty() ? C(1) : w[c]; }
};

int64_t grain_rows(int64_t cols) { return std::max<int64_t>(1, kDefaultGrain / (cols + 1)); }

template <typename T, typename C>
void forward_typed(const Tensor& logits, const Tensor& target, const Tensor& weight,
                   int64_t ignore_index, double smoothing, const Tensor& loss, const Tensor& lse) {
  Rows<T, C> a(logits, target, weight, ignore_index, smoothing);
  for (int64_t r = 0; r < a.rows; ++r) {  // bad targets raise before anything is computed
    int64_t t = a.target[r];
    GENESIS_CHECK_INDEX(t == a.ignore || (t >= 0 && t < a.cols), "cross_entropy", "target ", t,
                        " is out of bounds for ", a.cols, " classes");
  }
  T* out = loss.mutable_data_as<T>();
  C* lses = lse.mutable_data_as<C>();
  parallel_for(a.rows, grain_rows(a.cols), [&](int64_t r0, int64_t r1) {
    std::vector<C> scratch, exps;
    for (int64_t r = r0; r < r1; ++r) {
      const C* x = widened<T, C>(a.x + r * a.cols, a.cols, scratch);
      RowLse<C> l = row_logsumexp(x, a.cols, exps);
      lses[2 * r] = l.m;
      lses[2 * r + 1] = l.log_s;
      int64_t t = a.target[r];
      if (t == a.ignore) {
        out[r] = static_cast<T>(C(0));
        continue;
      }
      C v = (C(1) - a.smoothing) * a.weight(t) * ((l.m - x[t]) + l.log_s);
      if (a.smoothing > 0) {  // sum w[c] (x[c] - x[0]): a common offset cancels first
        C wx = 0;
        for (int64_t c = 0; c < a.cols; ++c) wx += a.weight(c) * (x[c] - x[0]);
        v += a.smoothing / C(a.cols) * (a.total_w * ((l.m - x[0]) + l.log_s) - wx);
      }
      out[r] = static_cast<T>(v);
    }
  });
}

template <typename T, typename C>
void backward_typed(const Tensor& logits, const Tensor& target, const Tensor& weight,
                    int64_t ignore_index, double smoothing, const Tensor& grad, const Tensor& lse,
                    const Tensor& dlogits) {
  Rows<T, C> a(logits, target, weight, ignore_index, smoothing);
  const T* gs = grad.data_as<T>();
  const C* lses = lse.data_as<C>();
  T* dx = dlogits.mutable_data_as<T>();
  parallel_for(a.rows, grain_rows(a.cols), [&](int64_t r0, int64_t r1) {
    std::vector<C> scratch, scratch_g, line(static_cast<size_t>(a.cols));
    for (int64_t r = r0; r < r1; ++r) {
      int64_t t = a.target[r];
      T* out = dx + r * a.cols;
      if (t == a.ignore || t < 0 || t >= a.cols) {
        for (int64_t c = 0; c < a.cols; ++c) out[c] = static_cast<T>(C(0));
        continue;
      }
      const C* x = widened<T, C>(a.x + r * a.cols, a.cols, scratch);
      C g = widened<T, C>(gs + r, 1, scratch_g)[0];
      C m = lses[2 * r], log_s = lses[2 * r + 1];
      C hit = g * (C(1) - a.smoothing) * a.weight(t);
      C spread = g * a.smoothing / C(a.cols);
      for (int64_t c = 0; c < a.cols; ++c) line[c] = (x[c] - m) - log_s;
      exp_items(line.data(), line.data(), a.cols);
      if (a.smoothing > 0) {
        for (int64_t c = 0; c < a.cols; ++c)
          line[c] = hit * line[c] + spread * (a.total_w * line[c] - a.weight(c));
      } else {  // a loop without the branch, so that it vectorizes
        for (int64_t c = 0; c < a.cols; ++c) line[c] *= hit;
      }
      line[t] -= hit;
      for (int64_t c = 0; c < a.cols; ++c) out[c] = static_cast<T>(line[c]);
    }
  });
}

}  // namespace

void cross_entropy_forward(const Tensor& logits, const Tensor& target, const Tensor& weight,
                           int64_t ignore_index, double smoothing, const Tensor& loss,
                           const Tensor& lse) {
  dispatch_floating(logits.dtype(), "cross_entropy", [&](auto t, auto c) {
    forward_typed<decltype(t), decltype(c)>(logits, target, weight, ignore_index, smoothing, loss,
                                            lse);
  });
}

void cross_entropy_backward(const Tensor& logits, const Tensor& target, const Tensor& weight,
                            int64_t ignore_index, double smoothing, const Tensor& grad,
                            const Tensor& lse, const Tensor& dlogits) {
  dispatch_floating(logits.dtype(), "cross_entropy", [&](auto t, auto c) {
    backward_typed<decltype(t), decltype(c)>(logits, target, weight, ignore_index, smoothing, grad,
                                             lse, dlogits);
  });
}

}  // namespace genesis::cpu

#include "cpu/normalization.h"

#include <cmath>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cpu/float_kernels.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

constexpr int kLanes = 16;  // independent partial sums: lets the compiler vectorize the sums

// Rows are cut into at most one piece per thread, each worth a grain: the pieces (not the
// threads' scheduling) fix the order of the weight gradient's sums, so they are deterministic.
int64_t pieces_for(int64_t rows, int64_t cols) {
  int64_t work = rows * (cols > 0 ? cols : 1);
  int64_t pieces = work / kDefaultGrain + 1;
  return std::max<int64_t>(1, std::min({pieces, max_threads(), rows}));
}

template <typename T, typename C>
void forward_typed(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, bool rms,
                   const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  int64_t cols = x.sizes().back(), rows = x.numel() / cols;
  const T* xs = x.data_as<T>();
  const T* w = weight.defined() ? weight.data_as<T>() : nullptr;
  const T* b = bias.defined() ? bias.data_as<T>() : nullptr;
  std::vector<C> wc, bc;  // the affine parameters widened once
  const C* wv = w ? widened<T, C>(w, cols, wc) : nullptr;
  const C* bv = b ? widened<T, C>(b, cols, bc) : nullptr;
  T* ys = out.mutable_data_as<T>();
  C* means = mean.defined() ? mean.mutable_data_as<C>() : nullptr;
  C* rstds = rstd.mutable_data_as<C>();
  int64_t pieces = pieces_for(rows, cols);
  parallel_for(pieces, 1, [&](int64_t p0, int64_t p1) {
    std::vector<C> scratch, line(static_cast<size_t>(cols));
    for (int64_t p = p0; p < p1; ++p) {
      for (int64_t r = rows * p / pieces; r < rows * (p + 1) / pieces; ++r) {
        const C* row = widened<T, C>(xs + r * cols, cols, scratch);
        C mu = 0, r_std;
        if (rms) {
          C ms = lane_sum<kLanes, C>(cols, [&](int64_t i) { return row[i] * row[i]; }) / C(cols);
          r_std = C(1) / std::sqrt(ms + C(eps));
        } else {
          mu = lane_sum<kLanes, C>(cols, [&](int64_t i) { return row[i]; }) / C(cols);
          C var = lane_sum<kLanes, C>(cols,
                                      [&](int64_t i) {
                                        C d = row[i] - mu;
                                        return d * d;
                                      }) /
                  C(cols);
          r_std = C(1) / std::sqrt(var + C(eps));
          means[r] = mu;
        }
        rstds[r] = r_std;
        C* y = line.data();
        for (int64_t i = 0; i < cols; ++i) y[i] = (row[i] - mu) * r_std;
        if (wv)
          for (int64_t i = 0; i < cols; ++i) y[i] *= wv[i];
        if (bv)
          for (int64_t i = 0; i < cols; ++i) y[i] += bv[i];
        T* dst = ys + r * cols;
        for (int64_t i = 0; i < cols; ++i) dst[i] = static_cast<T>(y[i]);
      }
    }
  });
}

template <typename T, typename C>
void backward_typed(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                    const Tensor& weight, bool rms, const Tensor& grad_input,
                    const Tensor& grad_weight, const Tensor& grad_bias) {
  int64_t cols = x.sizes().back(), rows = x.numel() / cols;
  const T* xs = x.data_as<T>();
  const T* gs = grad.data_as<T>();
  const C* means = mean.defined() ? mean.data_as<C>() : nullptr;
  const C* rstds = rstd.data_as<C>();
  std::vector<C> wc;
  const C* wv = weight.defined() ? widened<T, C>(weight.data_as<T>(), cols, wc) : nullptr;
  T* dxs = grad_input.defined() ? grad_input.mutable_data_as<T>() : nullptr;
  bool want_w = grad_weight.defined(), want_b = grad_bias.defined();
  int64_t pieces = pieces_for(rows, cols);
  // Each piece's column sums of grad * xhat and of grad, added in piece order at the end.
  std::vector<C> dw_parts(want_w ? static_cast<size_t>(pieces * cols) : 0);
  std::vector<C> db_parts(want_b ? static_cast<size_t>(pieces * cols) : 0);
  parallel_for(pieces, 1, [&](int64_t p0, int64_t p1) {
    std::vector<C> x_scratch, g_scratch, xhat(static_cast<size_t>(cols)),
        gw(static_cast<size_t>(cols)), dx(static_cast<size_t>(cols));
    for (int64_t p = p0; p < p1; ++p) {
      C* dw = want_w ? dw_parts.data() + p * cols : nullptr;
      C* db = want_b ? db_parts.data() + p * cols : nullptr;
      for (int64_t r = rows * p / pieces; r < rows * (p + 1) / pieces; ++r) {
        const C* row = widened<T, C>(xs + r * cols, cols, x_scratch);
        const C* g = widened<T, C>(gs + r * cols, cols, g_scratch);
        C mu = rms ? C(0) : means[r], r_std = rstds[r];
        for (int64_t i = 0; i < cols; ++i) xhat[i] = (row[i] - mu) * r_std;
        if (dw)
          for (int64_t i = 0; i < cols; ++i) dw[i] += g[i] * xhat[i];
        if (db)
          for (int64_t i = 0; i < cols; ++i) db[i] += g[i];
        if (!dxs) continue;
        const C* gwv = g;
        if (wv) {
          for (int64_t i = 0; i < cols; ++i) gw[i] = g[i] * wv[i];
          gwv = gw.data();
        }
        C n = C(cols);
        C dot = lane_sum<kLanes, C>(cols, [&](int64_t i) { return gwv[i] * xhat[i]; }) / n;
        C avg = rms ? C(0) : lane_sum<kLanes, C>(cols, [&](int64_t i) { return gwv[i]; }) / n;
        for (int64_t i = 0; i < cols; ++i) dx[i] = r_std * (gwv[i] - avg - xhat[i] * dot);
        T* dst = dxs + r * cols;
        for (int64_t i = 0; i < cols; ++i) dst[i] = static_cast<T>(dx[i]);
      }
    }
  });
  auto finish = [&](const std::vector<C>& parts, const Tensor& into) {
    T* dst = into.mutable_data_as<T>();
    for (int64_t i = 0; i < cols; ++i) {
      C total = 0;
      for (int64_t p = 0; p < pieces; ++p) total += parts[p * cols + i];
      dst[i] = static_cast<T>(total);
    }
  };
  if (want_w) finish(dw_parts, grad_weight);
  if (want_b) finish(db_parts, grad_bias);
}

template <typename T, typename C>
struct Forward {
  template <typename... A>
  static void run(A&&... a) {
    forward_typed<T, C>(a...);
  }
};

template <typename T, typename C>
struct Backward {
  template <typename... A>
  static void run(A&&... a) {
    backward_typed<T, C>(a...);
  }
};

}  // namespace

void row_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                      bool rms, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  if (x.numel() == 0) return;
  dispatch_floating(x.dtype(), "layer_norm", [&](auto t, auto c) {
    Forward<decltype(t), decltype(c)>::run(x, weight, bias, eps, rms, out, mean, rstd);
  });
}

void row_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                       const Tensor& weight, bool rms, const Tensor& grad_input,
                       const Tensor& grad_weight, const Tensor& grad_bias) {
  dispatch_floating(x.dtype(), "layer_norm", [&](auto t, auto c) {
    Backward<decltype(t), decltype(c)>::run(grad, x, mean, rstd, weight, rms, grad_input,
                                            grad_weight, grad_bias);
  });
}

}  // namespace genesis::cpu

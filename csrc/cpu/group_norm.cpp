#include "cpu/group_norm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/float_kernels.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

constexpr int kLanes = 16;  // independent partial sums: lets the compiler vectorize the sums

// x is (N, C, *spatial): N * groups rows of C / groups channels of `spatial` items.
struct GroupRows {
  int64_t rows, per, spatial, cols;

  GroupRows(const Tensor& x, int64_t groups)
      : rows(x.sizes()[0] * groups),
        per(x.sizes()[1] / groups),
        spatial(x.numel() / (x.sizes()[0] * x.sizes()[1])),
        cols(per * spatial) {}

  int64_t grain() const { return std::max<int64_t>(1, kDefaultGrain / cols); }
};

template <typename T, typename C>
void forward_typed(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                   double eps, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  GroupRows g(x, groups);
  const T* xs = x.data_as<T>();
  std::vector<C> wc, bc;  // the affine parameters widened once
  const C* w = weight.defined() ? widened<T, C>(weight.data_as<T>(), weight.numel(), wc) : nullptr;
  const C* b = bias.defined() ? widened<T, C>(bias.data_as<T>(), bias.numel(), bc) : nullptr;
  T* ys = out.mutable_data_as<T>();
  C* means = mean.mutable_data_as<C>();
  C* rstds = rstd.mutable_data_as<C>();
  parallel_for(g.rows, g.grain(), [&](int64_t r0, int64_t r1) {
    std::vector<C> scratch;
    for (int64_t r = r0; r < r1; ++r) {
      const C* row = widened<T, C>(xs + r * g.cols, g.cols, scratch);
      C mu = lane_sum<kLanes, C>(g.cols, [&](int64_t i) { return row[i]; }) / C(g.cols);
      C var = lane_sum<kLanes, C>(g.cols,
                                  [&](int64_t i) {
                                    C d = row[i] - mu;
                                    return d * d;
                                  }) /
              C(g.cols);
      C r_std = C(1) / std::sqrt(var + C(eps));
      means[r] = mu;
      rstds[r] = r_std;
      int64_t first = (r % groups) * g.per;
      for (int64_t j = 0; j < g.per; ++j) {
        C scale = w ? r_std * w[first + j] : r_std;
        C shift = (b ? b[first + j] : C(0)) - mu * scale;
        const C* src = row + j * g.spatial;
        T* dst = ys + r * g.cols + j * g.spatial;
        for (int64_t i = 0; i < g.spatial; ++i) dst[i] = static_cast<T>(src[i] * scale + shift);
      }
    }
  });
}

template <typename T, typename C>
void backward_typed(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                    const Tensor& weight, int64_t groups, const Tensor& grad_input,
                    const Tensor& grad_weight, const Tensor& grad_bias) {
  GroupRows g(x, groups);
  const T* xs = x.data_as<T>();
  const T* gs = grad.data_as<T>();
  const C* means = mean.data_as<C>();
  const C* rstds = rstd.data_as<C>();
  std::vector<C> wc;
  const C* w = weight.defined() ? widened<T, C>(weight.data_as<T>(), weight.numel(), wc) : nullptr;
  T* dxs = grad_input.defined() ? grad_input.mutable_data_as<T>() : nullptr;
  // Each sample's and channel's sums of dy * xhat and of dy: [N][C] = [rows][per] each, added
  // over the samples in order at the end, so the gradients do not depend on the threads.
  std::vector<C> part_w(static_cast<size_t>(g.rows * g.per)), part_b(part_w.size());
  parallel_for(g.rows, g.grain(), [&](int64_t r0, int64_t r1) {
    std::vector<C> x_scratch, g_scratch;
    for (int64_t r = r0; r < r1; ++r) {
      const C* row = widened<T, C>(xs + r * g.cols, g.cols, x_scratch);
      const C* dy = widened<T, C>(gs + r * g.cols, g.cols, g_scratch);
      C mu = means[r], r_std = rstds[r];
      int64_t first = (r % groups) * g.per;
      C dot = 0, avg = 0;  // the row's sums of g * xhat and of g, g = dy * w
      for (int64_t j = 0; j < g.per; ++j) {
        const C* xj = row + j * g.spatial;
        const C* gj = dy + j * g.spatial;
        C a = lane_sum<kLanes, C>(g.spatial, [&](int64_t i) { return gj[i] * (xj[i] - mu); });
        C s = lane_sum<kLanes, C>(g.spatial, [&](int64_t i) { return gj[i]; });
        a *= r_std;
        part_w[r * g.per + j] = a;
        part_b[r * g.per + j] = s;
        C wj = w ? w[first + j] : C(1);
        dot += wj * a;
        avg += wj * s;
      }
      if (!dxs) continue;
      dot /= C(g.cols);
      avg /= C(g.cols);
      for (int64_t j = 0; j < g.per; ++j) {
        C wj = w ? w[first + j] : C(1);
        const C* xj = row + j * g.spatial;
        const C* gj = dy + j * g.spatial;
        T* dst = dxs + r * g.cols + j * g.spatial;
        for (int64_t i = 0; i < g.spatial; ++i)
          dst[i] = static_cast<T>(r_std * (gj[i] * wj - avg - (xj[i] - mu) * r_std * dot));
      }
    }
  });
  int64_t samples = g.rows / groups, channels = groups * g.per;
  auto finish = [&](const std::vector<C>& parts, const Tensor& into) {
    T* dst = into.mutable_data_as<T>();
    for (int64_t c = 0; c < channels; ++c) {
      C total = 0;
      for (int64_t n = 0; n < samples; ++n) total += parts[n * channels + c];
      dst[c] = static_cast<T>(total);
    }
  };
  if (grad_weight.defined()) finish(part_w, grad_weight);
  if (grad_bias.defined()) finish(part_b, grad_bias);
}

}  // namespace

void group_norm_forward(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                        double eps, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  dispatch_floating(x.dtype(), "group_norm", [&](auto t, auto c) {
    forward_typed<decltype(t), decltype(c)>(x, groups, weight, bias, eps, out, mean, rstd);
  });
}

void group_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& rstd, const Tensor& weight, int64_t groups,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias) {
  dispatch_floating(x.dtype(), "group_norm", [&](auto t, auto c) {
    backward_typed<decltype(t), decltype(c)>(grad, x, mean, rstd, weight, groups, grad_input,
                                             grad_weight, grad_bias);
  });
}

}  // namespace genesis::cpu

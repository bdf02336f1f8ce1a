#include "cpu/batch_norm.h"

#include <cmath>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cpu/float_kernels.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

struct Dims {
  int64_t n, c, s;
  explicit Dims(const Tensor& x) : n(x.sizes()[0]), c(x.sizes()[1]), s(x.sizes()[2]) {}
};

// Sum over channel ch's planes of f(at), `at` an element's index in the (N, C, S) arrays: a
// plane in 8 lanes of partial sums of C, the planes' sums added in double (a float total of many
// planes would lose the small ones).
template <typename C, typename F>
C channel_sum(const Dims& d, int64_t ch, const F& f) {
  double total = 0;
  for (int64_t n = 0; n < d.n; ++n) {
    int64_t base = (n * d.c + ch) * d.s;
    total += static_cast<double>(lane_sum<8, C>(d.s, [&](int64_t i) { return f(base + i); }));
  }
  return static_cast<C>(total);
}

int64_t channel_grain(const Dims& d) {
  return std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, d.n * d.s));
}

template <typename T, typename C>
void stats_typed(const Tensor& x, double eps, double momentum, const Tensor& mean,
                 const Tensor& invstd, const Tensor& running_mean, const Tensor& running_var) {
  Dims d(x);
  const T* xs = x.data_as<T>();
  C* means = mean.mutable_data_as<C>();
  C* invstds = invstd.mutable_data_as<C>();
  T* rm = running_mean.defined() ? running_mean.mutable_data_as<T>() : nullptr;
  T* rv = running_var.defined() ? running_var.mutable_data_as<T>() : nullptr;
  C count = C(d.n * d.s);
  parallel_for(d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      C mu = channel_sum<C>(d, ch, [xs](int64_t at) { return widen<C>(xs[at]); }) / count;
      C m2 = channel_sum<C>(d, ch, [xs, mu](int64_t at) {
        C v = widen<C>(xs[at]) - mu;
        return v * v;
      });
      C var = m2 / count;
      means[ch] = mu;
      invstds[ch] = C(1) / std::sqrt(var + C(eps));
      if (rm) {
        C unbiased = count > 1 ? m2 / (count - 1) : var;
        C mom = C(momentum);
        rm[ch] = static_cast<T>((C(1) - mom) * widen<C>(rm[ch]) + mom * mu);
        rv[ch] = static_cast<T>((C(1) - mom) * widen<C>(rv[ch]) + mom * unbiased);
      }
    }
  });
}

template <typename T, typename C>
void apply_typed(const Tensor& x, const Tensor& mean, const Tensor& invstd, const Tensor& weight,
                 const Tensor& bias, const Tensor& out) {
  Dims d(x);
  const T* xs = x.data_as<T>();
  const C* means = mean.data_as<C>();
  const C* invstds = invstd.data_as<C>();
  const T* w = weight.defined() ? weight.data_as<T>() : nullptr;
  const T* b = bias.defined() ? bias.data_as<T>() : nullptr;
  T* ys = out.mutable_data_as<T>();
  parallel_for(d.n * d.c, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, d.s)),
               [&](int64_t p0, int64_t p1) {
                 for (int64_t plane = p0; plane < p1; ++plane) {
                   int64_t ch = plane % d.c;
                   C scale = invstds[ch] * (w ? widen<C>(w[ch]) : C(1));
                   C shift = (b ? widen<C>(b[ch]) : C(0)) - means[ch] * scale;
                   const T* src = xs + plane * d.s;
                   T* dst = ys + plane * d.s;
                   for (int64_t i = 0; i < d.s; ++i)
                     dst[i] = static_cast<T>(widen<C>(src[i]) * scale + shift);
                 }
               });
}

template <typename T, typename C>
void backward_typed(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                    const Tensor& weight, bool training, const Tensor& grad_input,
                    const Tensor& grad_weight, const Tensor& grad_bias) {
  Dims d(x);
  const T* xs = x.data_as<T>();
  const T* gs = grad.data_as<T>();
  const C* means = mean.data_as<C>();
  const C* invstds = invstd.data_as<C>();
  const T* w = weight.defined() ? weight.data_as<T>() : nullptr;
  // Per channel: dx = k1 * dy - k2 * x + k3 (Note [Fused batch norm]).
  std::vector<C> k1(d.c), k2(d.c), k3(d.c);
  C count = C(d.n * d.s);
  parallel_for(d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      C mu = means[ch], is = invstds[ch];
      C sum_dy = channel_sum<C>(d, ch, [gs](int64_t at) { return widen<C>(gs[at]); });
      C sum_dy_xc = channel_sum<C>(
          d, ch, [gs, xs, mu](int64_t at) { return widen<C>(gs[at]) * (widen<C>(xs[at]) - mu); });
      if (grad_weight.defined())
        grad_weight.mutable_data_as<T>()[ch] = static_cast<T>(sum_dy_xc * is);
      if (grad_bias.defined()) grad_bias.mutable_data_as<T>()[ch] = static_cast<T>(sum_dy);
      C wc = w ? widen<C>(w[ch]) : C(1);
      k1[ch] = wc * is;
      if (training) {
        k2[ch] = wc * is * is * is * sum_dy_xc / count;
        k3[ch] = -wc * is * sum_dy / count + k2[ch] * mu;
      } else {
        k2[ch] = 0;
        k3[ch] = 0;
      }
    }
  });
  if (!grad_input.defined()) return;
  T* dx = grad_input.mutable_data_as<T>();
  parallel_for(
      d.n * d.c, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, d.s)),
      [&](int64_t p0, int64_t p1) {
        for (int64_t plane = p0; plane < p1; ++plane) {
          int64_t ch = plane % d.c;
          const T* g = gs + plane * d.s;
          const T* xp = xs + plane * d.s;
          T* out = dx + plane * d.s;
          for (int64_t i = 0; i < d.s; ++i)
            out[i] = static_cast<T>(k1[ch] * widen<C>(g[i]) - k2[ch] * widen<C>(xp[i]) + k3[ch]);
        }
      });
}

}  // namespace

void batch_norm_stats(const Tensor& x, double eps, double momentum, const Tensor& mean,
                      const Tensor& invstd, const Tensor& running_mean, const Tensor& running_var) {
  dispatch_floating(x.dtype(), "batch_norm", [&](auto t, auto c) {
    stats_typed<decltype(t), decltype(c)>(x, eps, momentum, mean, invstd, running_mean,
                                          running_var);
  });
}

void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& out) {
  dispatch_floating(x.dtype(), "batch_norm", [&](auto t, auto c) {
    apply_typed<decltype(t), decltype(c)>(x, mean, invstd, weight, bias, out);
  });
}

void batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias) {
  dispatch_floating(x.dtype(), "batch_norm", [&](auto t, auto c) {
    backward_typed<decltype(t), decltype(c)>(grad, x, mean, invstd, weight, training, grad_input,
                                             grad_weight, grad_bias);
  });
}

}  // namespace genesis::cpu

// Note [Fused group norm]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Group norm as ops (var_mean over each sample's group, then a per-channel scale and shift)
// reads and writes the tensor about four times forward and twice that backward. With C
// channels in `groups` groups, each (sample, group) of a contiguous (N, C, *) input is one
// contiguous row of C / groups channels: forward reads the row for its mean and variance and
// writes y = x * scale[c] + shift[c] with scale = rstd * weight[c] and shift = bias[c] - mean *
// scale (the affine step rounded once with the normalization, also for 16-bit inputs); backward
// reads dy and x for each (sample, channel)'s sums of dy * xhat and dy, which give the weight's
// and bias's gradients (added over the samples in a fixed order) and, weighted by the weight,
// the row sums of the input's gradient, written in one more pass:
//   dx = rstd * (g - avg(g) - xhat * avg(g * xhat)),  g = dy * weight[c], averages over the row.
// 16-bit inputs are computed in float32, float64 in float64. Kernels: cpu/group_norm.cpp and
// kernels/group_norm.cu (Note [Fused group norm kernels]); the autograd node
// (autograd/group_norm.cpp) records the same formula under create_graph.
#include "ops/group_norm.h"

#include <limits>

#include "core/errors.h"
#include "cpu/group_norm.h"
#include "cuda/group_norm.h"
#include "ops/convert.h"
#include "ops/creation.h"

namespace genesis::ops {

namespace {

void check_param(const Tensor& p, const Tensor& x, const char* what) {
  if (!p.defined()) return;
  GENESIS_CHECK(p.dtype() == x.dtype(), "group_norm", "expected ", what, " of dtype ",
                scalar_type_name(x.dtype()), " (the input's), got ", scalar_type_name(p.dtype()));
  GENESIS_CHECK(p.device() == x.device(), "group_norm", "expected ", what,
                " on the input's device ", x.device().str(), ", got ", p.device().str());
  GENESIS_CHECK(p.numel() == x.sizes()[1], "group_norm", "expected ", what, " of ", x.sizes()[1],
                " items (the channels), got ", p.numel());
}

}  // namespace

RowNorm group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                   double eps) {
  GENESIS_CHECK_TYPE(is_floating_point(x.dtype()), "group_norm",
                     "expected a floating point input, got ", scalar_type_name(x.dtype()));
  GENESIS_CHECK(x.ndim() >= 2, "group_norm", "expected an (N, C, *) input, got ", x.ndim(),
                " dims");
  GENESIS_CHECK(groups > 0 && x.sizes()[1] % groups == 0, "group_norm", "expected ", x.sizes()[1],
                " channels to split into ", groups, " groups");
  check_param(weight, x, "weight");
  check_param(bias, x, "bias");
  ScalarType compute = x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Shape stats{x.sizes()[0], groups};
  RowNorm r;
  r.out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (x.numel() == 0) {  // groups of no items: the mean and variance of nothing
    double nan = std::numeric_limits<double>::quiet_NaN();
    r.mean = full(stats, Scalar(nan), compute, x.device());
    r.rstd = full(stats, Scalar(nan), compute, x.device());
    return r;
  }
  r.mean = Tensor::empty(stats, compute, x.device());
  r.rstd = Tensor::empty(stats, compute, x.device());
  Tensor xc = contiguous(x);
  Tensor w = weight.defined() ? contiguous(weight) : Tensor();
  Tensor b = bias.defined() ? contiguous(bias) : Tensor();
  if (x.is_cuda())
    cuda::group_norm_forward(xc, groups, w, b, eps, r.out, r.mean, r.rstd);
  else
    cpu::group_norm_forward(xc, groups, w, b, eps, r.out, r.mean, r.rstd);
  return r;
}

RowNormGrads group_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                                 const Tensor& rstd, const Tensor& weight, int64_t groups,
                                 bool want_input, bool want_weight, bool want_bias) {
  RowNormGrads g;
  Shape channels{x.sizes()[1]};
  if (want_input) g.input = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (x.numel() == 0) {  // no items: the sums over them are zero
    if (want_weight) g.weight = full(channels, Scalar(0.0), x.dtype(), x.device());
    if (want_bias) g.bias = full(channels, Scalar(0.0), x.dtype(), x.device());
    return g;
  }
  if (want_weight) g.weight = Tensor::empty(channels, x.dtype(), x.device());
  if (want_bias) g.bias = Tensor::empty(channels, x.dtype(), x.device());
  if (!want_input && !want_weight && !want_bias) return g;
  Tensor xc = contiguous(x), gc = contiguous(grad);
  Tensor w = weight.defined() ? contiguous(weight) : Tensor();
  Tensor m = contiguous(mean), r = contiguous(rstd);
  if (x.is_cuda())
    cuda::group_norm_backward(gc, xc, m, r, w, groups, g.input, g.weight, g.bias);
  else
    cpu::group_norm_backward(gc, xc, m, r, w, groups, g.input, g.weight, g.bias);
  return g;
}

}  // namespace genesis::ops

// Note [Fused batch norm]
// ~~~~~~~~~~~~~~~~~~~~~~~
// batch_norm composed (var_mean over N and the spatial dims, the running statistics' lerps, a
// scale and a shift) reads and writes the input several times each way. As kernels, the input
// is seen as (N, C, S) planes: forward sums each channel's planes once for its statistics (and
// updates the running statistics in the same kernel) and makes one elementwise pass
// y = x * scale[c] + shift[c]; backward sums dy and dy * (x - mean) per channel once and makes
// one pass dx = k1 * dy - k2 * x + k3, where (xhat = (x - mean) * invstd, M = N * S)
//   k1 = w * invstd,  k2 = w * invstd^3 * sum(dy * (x - mean)) / M,
//   k3 = -w * invstd * sum(dy) / M + k2 * mean        (training; k2 = k3 = 0 otherwise)
// and dweight = sum(dy * xhat), dbias = sum(dy). Out of training the statistics are the running
// ones, constants. Kernels: cpu/batch_norm.cpp and kernels/batch_norm.cu; the autograd node in
// autograd/batch_norm.cpp (the same formula as recorded ops under create_graph).
//
// Two things a convolutional network trained under autocast brings: a bfloat16 or float16 input
// beside float32 weight, bias and running statistics (BatchNorm's parameters stay float32, as in
// PyTorch), and a channels-last input. The parameters are taken in their own dtype (the CUDA
// kernels read and write them as float32; the CPU widens the input and runs its float32
// kernels), and the gradients of the weight and bias come out in it. On CUDA a dense
// channels-last input (and a contiguous (N, C) one) is normalized where it lies, as (N * S) rows
// of C items; the CPU makes the (N, C, S) planes. Either way the result and the input's gradient
// keep a dense channels-last input's layout, as PyTorch's. Without these a ResNet step under
// autocast took the composed path: about 20 passes over each activation instead of 4.
#include "ops/batch_norm.h"

#include <initializer_list>

#include "core/errors.h"
#include "cpu/batch_norm.h"
#include "cuda/batch_norm.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/layout.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

constexpr const char* kOp = "batch_norm";

ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
}

bool is_16_bit(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }

// The parameters' dtype (the first given, else x's): x's, or float32 beside a 16-bit x.
ScalarType param_dtype(const Tensor& x, std::initializer_list<const Tensor*> params) {
  ScalarType pd = x.dtype();
  for (const Tensor* p : params)
    if (p->defined()) {
      pd = p->dtype();
      break;
    }
  GENESIS_CHECK_TYPE(pd == x.dtype() || (is_16_bit(x.dtype()) && pd == ScalarType::Float32), kOp,
                     "expected the weight, bias and running statistics in the input's dtype ",
                     scalar_type_name(x.dtype()), " (or float32 beside a 16-bit input), got ",
                     scalar_type_name(pd));
  return pd;
}

void check_param(const Tensor& p, const Tensor& x, ScalarType pd, const char* what) {
  if (!p.defined()) return;
  GENESIS_CHECK(
      p.dtype() == pd && p.device() == x.device() && p.ndim() == 1 && p.numel() == x.sizes()[1],
      kOp, "expected ", what, " of ", x.sizes()[1], " items of dtype ", scalar_type_name(pd),
      " (the other parameters') on ", x.device().str());
}

int64_t spatial(const Tensor& x) {
  int64_t s = 1;
  for (int64_t d = 2; d < x.ndim(); ++d) s *= x.sizes()[d];
  return s;
}

// x as contiguous (N, C, S).
Tensor planes(const Tensor& x) {
  return reshape(contiguous(x), Shape{x.sizes()[0], x.sizes()[1], spatial(x)});
}

// Whether x is dense channels-last (strides of size-1 dims do not matter) and not also a
// contiguous (N, C, S) tensor with S > 1, for which the planes are the better reading.
bool channels_last_dense(const Tensor& x) {
  if (x.is_contiguous() && spatial(x) > 1) return false;
  return x.ndim() == 2 ? x.is_contiguous() : is_channels_last(x.sizes(), x.strides());
}

// An uninitialized tensor of x's sizes: laid out as x when x is dense channels-last, else
// contiguous.
Tensor like(const Tensor& x, bool channels_last, ScalarType dtype) {
  if (!channels_last) return Tensor::empty(x.sizes(), dtype, x.device());
  return empty_channels_last(x.sizes(), dtype, x.device());
}

// t (x's sizes) in x's channels-last layout: t itself when it already is.
Tensor in_layout(const Tensor& t, const Tensor& x) {
  if (channels_last_dense(t) && t.dtype() == x.dtype()) return t;
  Tensor out = like(x, true, x.dtype());
  copy_(out, t);
  return out;
}

}  // namespace

BatchNorm batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool training,
                     double momentum, double eps) {
  ScalarType d = x.dtype();
  GENESIS_CHECK_TYPE(d == ScalarType::Float16 || d == ScalarType::BFloat16 ||
                         d == ScalarType::Float32 || d == ScalarType::Float64,
                     kOp, "expected a floating point input, got ", scalar_type_name(d));
  GENESIS_CHECK(x.ndim() >= 2 && x.numel() > 0, kOp, "expected a non-empty (N, C, *) input, got ",
                x.ndim(), " dims");
  ScalarType pd = param_dtype(x, {&weight, &bias, &running_mean, &running_var});
  for (auto [p, what] : {std::pair{&weight, "weight"},
                         {&bias, "bias"},
                         {&running_mean, "running_mean"},
                         {&running_var, "running_var"}})
    check_param(*p, x, pd, what);
  GENESIS_CHECK(running_mean.defined() == running_var.defined(), kOp,
                "expected running_mean and running_var both or neither");
  GENESIS_CHECK(training || running_mean.defined(), kOp,
                "running_mean must be defined in evaluation mode");
  GENESIS_CHECK(
      !running_mean.defined() || (running_mean.is_contiguous() && running_var.is_contiguous()), kOp,
      "expected contiguous running statistics");
  const bool channels_last = channels_last_dense(x);
  const bool rows = x.is_cuda() && channels_last;
  // The CPU's kernels take one dtype: float32 parameters beside a 16-bit input widen the input.
  const bool widen = !x.is_cuda() && pd != d;
  Tensor xk = rows ? x : planes(x);
  if (widen) xk = to(xk, pd, x.device(), false);
  ScalarType compute = compute_dtype(d);
  BatchNorm r;
  int64_t channels = x.sizes()[1];
  if (training) {
    r.mean = Tensor::empty(Shape{channels}, compute, x.device());
    r.invstd = Tensor::empty(Shape{channels}, compute, x.device());
    if (x.is_cuda())
      cuda::batch_norm_stats(xk, eps, momentum, r.mean, r.invstd, running_mean, running_var, rows);
    else
      cpu::batch_norm_stats(xk, eps, momentum, r.mean, r.invstd, running_mean, running_var);
  } else {
    r.mean = contiguous(to(running_mean, compute, x.device(), /*copy=*/true));
    Tensor var = to(running_var, compute, x.device(), false);
    r.invstd = contiguous(unary(UnaryOp::Rsqrt, binary(BinaryOp::Add, var, Scalar(eps), kOp), kOp));
  }
  Tensor w = weight.defined() ? contiguous(weight) : Tensor();
  Tensor b = bias.defined() ? contiguous(bias) : Tensor();
  r.out = like(x, channels_last, d);
  if (rows) {
    cuda::batch_norm_apply(xk, r.mean, r.invstd, w, b, r.out, true);
    return r;
  }
  // The planes' result: written in place when r.out is contiguous of xk's dtype, else copied.
  const bool direct = !channels_last && !widen;
  Tensor out3 =
      direct ? reshape(r.out, xk.sizes()) : Tensor::empty(xk.sizes(), xk.dtype(), x.device());
  if (x.is_cuda())
    cuda::batch_norm_apply(xk, r.mean, r.invstd, w, b, out3, false);
  else
    cpu::batch_norm_apply(xk, r.mean, r.invstd, w, b, out3);
  if (!direct) copy_(r.out, reshape(out3, x.sizes()));
  return r;
}

BatchNormGrads batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                                   const Tensor& invstd, const Tensor& weight, bool training,
                                   bool want_input, bool want_weight, bool want_bias,
                                   ScalarType pd) {
  BatchNormGrads g;
  const bool channels_last = channels_last_dense(x);
  const bool rows = x.is_cuda() && channels_last;
  const bool widen = !x.is_cuda() && pd != x.dtype();
  int64_t channels = x.sizes()[1];
  if (want_weight) g.weight = Tensor::empty(Shape{channels}, pd, x.device());
  if (want_bias) g.bias = Tensor::empty(Shape{channels}, pd, x.device());
  Tensor w = weight.defined() ? contiguous(weight) : Tensor();
  if (want_input) g.input = like(x, channels_last, x.dtype());
  if (rows) {
    Tensor gk = in_layout(to(grad, x.dtype(), x.device(), false), x);
    cuda::batch_norm_backward(gk, x, mean, invstd, w, training, g.input, g.weight, g.bias, true);
    return g;
  }
  Tensor x3 = planes(x);
  Tensor g3 = planes(to(grad, x.dtype(), x.device(), false));
  if (widen) {
    x3 = to(x3, pd, x.device(), false);
    g3 = to(g3, pd, x.device(), false);
  }
  const bool direct = !channels_last && !widen;
  Tensor dx3;
  if (want_input)
    dx3 = direct ? reshape(g.input, x3.sizes()) : Tensor::empty(x3.sizes(), x3.dtype(), x.device());
  if (x.is_cuda())
    cuda::batch_norm_backward(g3, x3, mean, invstd, w, training, dx3, g.weight, g.bias, false);
  else
    cpu::batch_norm_backward(g3, x3, mean, invstd, w, training, dx3, g.weight, g.bias);
  if (want_input && !direct) copy_(g.input, reshape(dx3, x.sizes()));
  return g;
}

}  // namespace genesis::ops

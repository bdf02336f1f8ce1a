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
#include "ops/batch_norm.h"

#include "core/errors.h"
#include "cpu/batch_norm.h"
#include "cuda/batch_norm.h"
#include "ops/convert.h"
#include "ops/elementwise.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

constexpr const char* kOp = "batch_norm";

ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
}

void check_param(const Tensor& p, const Tensor& x, const char* what) {
  if (!p.defined()) return;
  GENESIS_CHECK(p.dtype() == x.dtype() && p.device() == x.device() && p.ndim() == 1 &&
                    p.numel() == x.sizes()[1],
                kOp, "expected ", what, " of ", x.sizes()[1], " items of the input's dtype ",
                scalar_type_name(x.dtype()), " on ", x.device().str());
}

// x as contiguous (N, C, S).
Tensor planes(const Tensor& x) {
  int64_t s = 1;
  for (int64_t d = 2; d < x.ndim(); ++d) s *= x.sizes()[d];
  return reshape(contiguous(x), Shape{x.sizes()[0], x.sizes()[1], s});
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
  for (auto [p, what] : {std::pair{&weight, "weight"},
                         {&bias, "bias"},
                         {&running_mean, "running_mean"},
                         {&running_var, "running_var"}})
    check_param(*p, x, what);
  GENESIS_CHECK(running_mean.defined() == running_var.defined(), kOp,
                "expected running_mean and running_var both or neither");
  GENESIS_CHECK(training || running_mean.defined(), kOp,
                "running_mean must be defined in evaluation mode");
  GENESIS_CHECK(
      !running_mean.defined() || (running_mean.is_contiguous() && running_var.is_contiguous()), kOp,
      "expected contiguous running statistics");
  Tensor x3 = planes(x);
  ScalarType compute = compute_dtype(d);
  BatchNorm r;
  int64_t channels = x.sizes()[1];
  if (training) {
    r.mean = Tensor::empty(Shape{channels}, compute, x.device());
    r.invstd = Tensor::empty(Shape{channels}, compute, x.device());
    if (x.is_cuda())
      cuda::batch_norm_stats(x3, eps, momentum, r.mean, r.invstd, running_mean, running_var);
    else
      cpu::batch_norm_stats(x3, eps, momentum, r.mean, r.invstd, running_mean, running_var);
  } else {
    r.mean = contiguous(to(running_mean, compute, x.device(), /*copy=*/true));
    Tensor var = to(running_var, compute, x.device(), false);
    r.invstd = contiguous(unary(UnaryOp::Rsqrt, binary(BinaryOp::Add, var, Scalar(eps), kOp), kOp));
  }
  Tensor w = weight.defined() ? contiguous(weight) : Tensor();
  Tensor b = bias.defined() ? contiguous(bias) : Tensor();
  r.out = Tensor::empty(x.sizes(), d, x.device());
  Tensor out3 = reshape(r.out, x3.sizes());
  if (x.is_cuda())
    cuda::batch_norm_apply(x3, r.mean, r.invstd, w, b, out3);
  else
    cpu::batch_norm_apply(x3, r.mean, r.invstd, w, b, out3);
  return r;
}

BatchNormGrads batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                                   const Tensor& invstd, const Tensor& weight, bool training,
                                   bool want_input, bool want_weight, bool want_bias) {
  BatchNormGrads g;
  Tensor x3 = planes(x);
  Tensor g3 = planes(to(grad, x.dtype(), x.device(), false));
  int64_t channels = x.sizes()[1];
  if (want_input) g.input = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (want_weight) g.weight = Tensor::empty(Shape{channels}, x.dtype(), x.device());
  if (want_bias) g.bias = Tensor::empty(Shape{channels}, x.dtype(), x.device());
  Tensor dx3 = want_input ? reshape(g.input, x3.sizes()) : Tensor();
  Tensor w = weight.defined() ? contiguous(weight) : Tensor();
  if (x.is_cuda())
    cuda::batch_norm_backward(g3, x3, mean, invstd, w, training, dx3, g.weight, g.bias);
  else
    cpu::batch_norm_backward(g3, x3, mean, invstd, w, training, dx3, g.weight, g.bias);
  return g;
}

}  // namespace genesis::ops

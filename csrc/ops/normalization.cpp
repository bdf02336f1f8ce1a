// Note [Fused row normalization]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// layer_norm and rms_norm written as ops (var_mean, subtract, rsqrt, multiply, add) read and
// write the whole tensor about six times forward and twice that backward, and keep each
// intermediate alive for backward. As one op, the normalized dims are flattened into rows of
// `cols` items and each row is one task: forward reads a row once, computes its mean and
// variance exactly (two passes over the row while it is in registers or cache, never
// E[x^2] - E[x]^2), and writes the result, keeping only each row's mean and 1/std; backward
// reads the row and its gradient once and writes dx, with the weight's and bias's gradients as
// column sums over the rows. 16-bit inputs are computed in float32, float64 in float64, as
// PyTorch's kernels. Kernels: cpu/normalization.cpp and kernels/normalization.cu.
//
// The backward's formula (xhat = (x - mean) * rstd, g = dy * weight, averages over the row):
//   dx = rstd * (g - avg(g) - xhat * avg(g * xhat)), dweight = sum dy * xhat, dbias = sum dy,
// and for RMS norm (mean 0) the avg(g) term is absent. The autograd node (autograd/
// normalization.cpp) calls the fused backward, except under create_graph, where it writes the
// same formula with recorded ops so that second derivatives exist.
#include "ops/normalization.h"

#include <limits>

#include "core/errors.h"
#include "cpu/normalization.h"
#include "cuda/normalization.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

bool fused_dtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 || t == ScalarType::Float32 ||
         t == ScalarType::Float64;
}

ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
}

// The leading (statistics) sizes and the flattened row length.
std::pair<Shape, int64_t> split_sizes(const Tensor& x, int64_t normalized_ndim, const char* name) {
  GENESIS_CHECK(normalized_ndim >= 1 && normalized_ndim <= x.ndim(), name, "expected 1 to ",
                x.ndim(), " normalized dims, got ", normalized_ndim);
  Shape lead(x.sizes().begin(), x.sizes().end() - normalized_ndim);
  int64_t cols = 1;
  for (int64_t d = x.ndim() - normalized_ndim; d < x.ndim(); ++d) cols *= x.sizes()[d];
  return {lead, cols};
}

void check_param(const Tensor& p, const Tensor& x, int64_t cols, const char* name,
                 const char* what) {
  if (!p.defined()) return;
  GENESIS_CHECK(p.dtype() == x.dtype(), name, "expected ", what, " of dtype ",
                scalar_type_name(x.dtype()), " (the input's), got ", scalar_type_name(p.dtype()));
  GENESIS_CHECK(p.device() == x.device(), name, "expected ", what, " on the input's device ",
                x.device().str(), ", got ", p.device().str());
  GENESIS_CHECK(p.numel() == cols, name, "expected ", what, " of ", cols, " items, got ",
                p.numel());
}

Tensor rows_of(const Tensor& t, int64_t rows, int64_t cols) {
  return reshape(contiguous(t), Shape{rows, cols});
}

}  // namespace

RowNorm row_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight, const Tensor& bias,
                 double eps, bool rms, const char* name) {
  GENESIS_CHECK_TYPE(fused_dtype(x.dtype()), name, "expected a floating point input, got ",
                     scalar_type_name(x.dtype()));
  auto [lead, cols] = split_sizes(x, normalized_ndim, name);
  check_param(weight, x, cols, name, "weight");
  check_param(bias, x, cols, name, "bias");
  GENESIS_CHECK(!(rms && bias.defined()), name, "RMS norm takes no bias");
  int64_t rows = 1;
  for (int64_t s : lead) rows *= s;
  RowNorm r;
  ScalarType compute = compute_dtype(x.dtype());
  r.out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  r.rstd = Tensor::empty(lead, compute, x.device());
  if (!rms) r.mean = Tensor::empty(lead, compute, x.device());
  if (x.numel() == 0) {
    if (rows > 0) {  // rows of no items: the mean and variance of nothing
      double nan = std::numeric_limits<double>::quiet_NaN();
      r.rstd = full(lead, Scalar(nan), compute, x.device());
      if (!rms) r.mean = full(lead, Scalar(nan), compute, x.device());
    }
    return r;
  }
  Tensor x2 = rows_of(x, rows, cols);
  Tensor w = weight.defined() ? contiguous(weight) : Tensor();
  Tensor b = bias.defined() ? contiguous(bias) : Tensor();
  Tensor out2 = reshape(r.out, Shape{rows, cols});
  if (x.is_cuda())
    cuda::row_norm_forward(x2, w, b, eps, rms, out2, r.mean, r.rstd);
  else
    cpu::row_norm_forward(x2, w, b, eps, rms, out2, r.mean, r.rstd);
  return r;
}

RowNormGrads row_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& mean,
                               const Tensor& rstd, const Tensor& weight, int64_t normalized_ndim,
                               bool rms, bool want_input, bool want_weight, bool want_bias,
                               const Tensor& addend) {
  auto [lead, cols] = split_sizes(x, normalized_ndim, "layer_norm_backward");
  int64_t rows = 1;
  for (int64_t s : lead) rows *= s;
  RowNormGrads g;
  Shape param_sizes = weight.defined() ? weight.sizes() : Shape{cols};
  if (want_input) g.input = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (want_weight) g.weight = Tensor::empty(param_sizes, x.dtype(), x.device());
  if (want_bias) g.bias = Tensor::empty(param_sizes, x.dtype(), x.device());
  if (cols == 0 || (!want_input && !want_weight && !want_bias)) return g;
  if (rows == 0) {  // no rows: the column sums are zero
    if (want_weight) g.weight = full(param_sizes, Scalar(0.0), x.dtype(), x.device());
    if (want_bias) g.bias = full(param_sizes, Scalar(0.0), x.dtype(), x.device());
    return g;
  }
  // A 16-bit gradient beside float32 x (Note [A gradient widened where it is used] in
  // autograd/engine.cpp): the CUDA kernel reads it widened; elsewhere it is widened first.
  const bool narrow_in_kernel =
      x.is_cuda() && x.dtype() == ScalarType::Float32 &&
      (grad.dtype() == ScalarType::BFloat16 || grad.dtype() == ScalarType::Float16);
  Tensor g_in =
      grad.dtype() == x.dtype() || narrow_in_kernel ? grad : to(grad, x.dtype(), x.device(), false);
  Tensor x2 = rows_of(x, rows, cols), g2 = rows_of(g_in, rows, cols);
  Tensor w = weight.defined() ? contiguous(weight) : Tensor();
  Tensor m = mean.defined() ? contiguous(mean) : Tensor(), r = contiguous(rstd);
  Tensor dx = want_input ? reshape(g.input, Shape{rows, cols}) : Tensor();
  // On CUDA the kernel adds the addend as it writes dx (read as x is: its dtype, contiguous
  // rows); otherwise an addition after the kernel.
  const bool in_kernel = want_input && addend.defined() && x.is_cuda() &&
                         addend.device() == x.device() && addend.dtype() == x.dtype() &&
                         addend.sizes() == x.sizes() && addend.is_contiguous();
  Tensor add = in_kernel ? reshape(addend, Shape{rows, cols}) : Tensor();
  if (x.is_cuda())
    cuda::row_norm_backward(g2, x2, m, r, w, rms, dx, add, g.weight, g.bias);
  else
    cpu::row_norm_backward(g2, x2, m, r, w, rms, dx, g.weight, g.bias);
  if (want_input && addend.defined() && !in_kernel)
    g.input = binary(BinaryOp::Add, addend, g.input, "backward");
  return g;
}

}  // namespace genesis::ops

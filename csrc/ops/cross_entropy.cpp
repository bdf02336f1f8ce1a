// Note [Fused cross-entropy]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// cross_entropy as log_softmax followed by a gather stores the (N, C) log-probabilities and
// reads and writes (N, C) tensors several times each way; for a language model's classifier
// (8192 x 50304 logits) that is gigabytes a step. As one op it reads each row of logits once
// forward (the online softmax's running maximum and sum give the row's logsumexp, the target's
// logit is one more load) and keeps only the row's logsumexp, as the pair (m, log s) of the
// row's maximum and the log of its sum of exp(x - m); backward reads the row once more and
// writes the gradient, each probability recomputed as p = exp((x - m) - log s). Taking
// lse - x[t] as (m - x[t]) + log s keeps the digits of a loss (or of 1 - p) far below the
// logits' size, which m + log s rounded to one number would lose. With lse = m + log s:
//   loss  = (1 - s) w[t] (lse - x[t]) + s / C * (W lse - sum_c w[c] x[c]),   W = sum_c w[c]
//   dx[c] = g ((1 - s) w[t] (p[c] - [c == t]) + s / C * (W p[c] - w[c]))
// with s the label smoothing, w the class weight (1 without one) and rows whose target is
// ignore_index contributing 0 (and a zero gradient). The reduction ('mean' divides by the sum of
// w[t] over the rows not ignored) stays with genesis.nn.functional, over the rows' losses.
// Kernels: cpu/cross_entropy.cpp and kernels/cross_entropy.cu.
#include "ops/cross_entropy.h"

#include "core/errors.h"
#include "cpu/cross_entropy.h"
#include "cuda/cross_entropy.h"
#include "ops/convert.h"
#include "ops/reduce.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
}

struct Rows {
  Tensor logits, target, weight, weight_sum;
};

Rows rows_of(const Tensor& logits, const Tensor& target, const Tensor& weight, double smoothing) {
  const char* op = "cross_entropy";
  ScalarType d = logits.dtype();
  GENESIS_CHECK_TYPE(d == ScalarType::Float16 || d == ScalarType::BFloat16 ||
                         d == ScalarType::Float32 || d == ScalarType::Float64,
                     op, "expected floating point logits, got ", scalar_type_name(d));
  GENESIS_CHECK(logits.ndim() == 1 || logits.ndim() == 2, op,
                "expected (N, C) or (C,) logits, got ", logits.ndim(), " dims");
  Shape expected = logits.ndim() == 2 ? Shape{logits.sizes()[0]} : Shape{};
  GENESIS_CHECK(target.dtype() == ScalarType::Int64 && target.sizes() == expected &&
                    target.device() == logits.device(),
                op, "expected an int64 target of ", expected.size(), " dims on the logits' device");
  int64_t classes = logits.sizes().back();
  if (weight.defined())
    GENESIS_CHECK(weight.dtype() == d && weight.device() == logits.device() && weight.ndim() == 1 &&
                      weight.numel() == classes,
                  op, "expected a weight of ", classes, " items of the logits' dtype and device");
  GENESIS_CHECK_VALUE(smoothing >= 0.0 && smoothing <= 1.0, op,
                      "label_smoothing must be between 0.0 and 1.0, got ", smoothing);
  Rows r;
  int64_t rows = logits.ndim() == 2 ? logits.sizes()[0] : 1;
  r.logits = reshape(contiguous(logits), Shape{rows, classes});
  r.target = reshape(contiguous(target), Shape{rows});
  if (weight.defined()) {
    r.weight = contiguous(weight);
    if (smoothing > 0) r.weight_sum = sum(weight, std::nullopt, false, compute_dtype(d));
  }
  return r;
}

}  // namespace

CrossEntropy cross_entropy(const Tensor& logits, const Tensor& target, const Tensor& weight,
                           int64_t ignore_index, double smoothing) {
  Rows r = rows_of(logits, target, weight, smoothing);
  CrossEntropy out;
  out.loss = Tensor::empty(target.sizes(), logits.dtype(), logits.device());
  Shape pair = target.sizes();
  pair.push_back(2);
  out.lse = Tensor::empty(pair, compute_dtype(logits.dtype()), logits.device());
  int64_t rows = r.target.numel();
  Tensor loss = reshape(out.loss, Shape{rows}), lse = reshape(out.lse, Shape{rows, 2});
  if (logits.is_cuda())
    cuda::cross_entropy_forward(r.logits, r.target, r.weight, r.weight_sum, ignore_index, smoothing,
                                loss, lse);
  else
    cpu::cross_entropy_forward(r.logits, r.target, r.weight, ignore_index, smoothing, loss, lse);
  return out;
}

Tensor cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& target,
                              const Tensor& weight, const Tensor& lse, int64_t ignore_index,
                              double smoothing) {
  Rows r = rows_of(logits, target, weight, smoothing);
  Tensor g =
      reshape(contiguous(to(grad, logits.dtype(), logits.device(), false)), r.target.sizes());
  Tensor l = reshape(contiguous(lse), Shape{r.target.numel(), 2});
  Tensor dx = Tensor::empty(logits.sizes(), logits.dtype(), logits.device());
  Tensor dx2 = reshape(dx, r.logits.sizes());
  if (logits.is_cuda())
    cuda::cross_entropy_backward(r.logits, r.target, r.weight, r.weight_sum, ignore_index,
                                 smoothing, g, l, dx2);
  else
    cpu::cross_entropy_backward(r.logits, r.target, r.weight, ignore_index, smoothing, g, l, dx2);
  return dx;
}

}  // namespace genesis::ops

// The fused cross-entropy's node (Note [Fused cross-entropy] in ops/cross_entropy.cpp): the
// fused backward kernel, or under create_graph the same formula in recorded ops. The target and
// the class weight get no gradient (PyTorch's nll_loss differentiates neither).
#include "ops/cross_entropy.h"
#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/views.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

Tensor constant(const Tensor& t, ScalarType dtype) { return ops::to(t, dtype, t.device(), false); }

// dlogits as recorded ops (differentiable in the logits and the loss gradient).
Tensor recorded_backward(const Tensor& grad, const Tensor& logits, const Tensor& target,
                         const Tensor& weight, int64_t ignore_index, double smoothing) {
  ScalarType compute =
      logits.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  int64_t classes = logits.sizes().back();
  int64_t rows = logits.ndim() == 2 ? logits.sizes()[0] : 1;
  Tensor x =
      reshape(logits.dtype() == compute ? logits : to(logits, compute, logits.device(), false),
              Shape{rows, classes});
  Tensor g = reshape(grad.dtype() == compute ? grad : to(grad, compute, grad.device(), false),
                     Shape{rows, 1});
  Tensor t = ops::reshape(target, Shape{rows, 1});
  Tensor ids = ops::arange(Scalar(int64_t{0}), Scalar(classes), Scalar(int64_t{1}),
                           ScalarType::Int64, logits.device());
  Tensor valid = constant(ops::binary(BinaryOp::Ne, t, Scalar(ignore_index), "ne"), compute);
  Tensor onehot = ops::binary(
      BinaryOp::Mul, constant(ops::binary(BinaryOp::Eq, t, ids, "eq"), compute), valid, "mul");
  Tensor w = weight.defined() ? ops::reshape(constant(weight, compute), Shape{1, classes})
                              : ops::full(Shape{1, classes}, Scalar(1.0), compute, logits.device());
  Tensor w_target = ops::sum(ops::binary(BinaryOp::Mul, onehot, w, "mul"), Shape{1}, true, {});
  Tensor p = softmax(x, 1, std::nullopt, false);
  Tensor d =
      mul(sub(p, onehot), ops::binary(BinaryOp::Mul, w_target, Scalar(1.0 - smoothing), "mul"));
  if (smoothing > 0) {
    Tensor total_w = ops::sum(w, std::nullopt, false, {});
    Tensor spread = sub(mul(p, total_w), w);
    d = add(d, mul(spread, ops::binary(BinaryOp::Mul, valid, Scalar(smoothing / classes), "mul")));
  }
  Tensor dx = reshape(mul(d, g), logits.sizes());
  return dx.dtype() == logits.dtype() ? dx : to(dx, logits.dtype(), dx.device(), false);
}

}  // namespace

Tensor cross_entropy(const Tensor& logits, const Tensor& target, const Tensor& weight,
                     int64_t ignore_index, double smoothing) {
  ops::CrossEntropy f = ops::cross_entropy(logits, target, weight, ignore_index, smoothing);
  Recorder r =
      record("CrossEntropyLossBackward0", {&logits},
             [ignore_index, smoothing](const FormulaNode&, const Grads& g, S s) {
               if (autograd::GradMode::is_enabled())
                 return Grads{recorded_backward(g[0], s[0], s[1], s[2], ignore_index, smoothing)};
               return Grads{ops::cross_entropy_backward(g[0], s[0], s[1], s[2], s[3], ignore_index,
                                                        smoothing)};
             });
  if (!r) return f.loss;
  r.save(logits);
  r.save(target);
  if (weight.defined())
    r.save(weight);
  else
    r.save_none();
  r.save(f.lse);
  set_history(r, {&f.loss});
  return f.loss;
}

}  // namespace genesis::ag

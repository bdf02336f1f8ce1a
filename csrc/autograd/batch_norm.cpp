// The fused batch norm's node (Note [Fused batch norm] in ops/batch_norm.cpp): the fused
// backward kernels, or under create_graph the same formula in recorded ops.
#include "ops/batch_norm.h"
#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

Grads recorded_backward(const FormulaNode& node, const Tensor& grad, const Tensor& x,
                        const Tensor& weight, const Tensor& saved_mean, const Tensor& saved_invstd,
                        bool training, double eps, ScalarType param_dtype) {
  ScalarType compute = x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Tensor xc = in_dtype(x, compute), g = in_dtype(grad, compute);
  Shape dims{0}, channel_shape(x.ndim(), 1);
  for (int64_t d = 2; d < x.ndim(); ++d) dims.push_back(d);
  channel_shape[1] = x.sizes()[1];
  Tensor mu, invstd;
  if (training) {
    mu = mean(xc, dims, true, {});
    Tensor centred = sub(xc, mu);
    invstd = ag::unary(UnaryOp::Rsqrt, add(mean(mul(centred, centred), dims, true, {}), num(eps)),
                       "rsqrt");
  } else {  // the running statistics: constants
    mu = reshape(saved_mean, channel_shape);
    invstd = reshape(saved_invstd, channel_shape);
  }
  Tensor xhat = mul(sub(xc, mu), invstd);
  Tensor gw = weight.defined() ? mul(g, reshape(in_dtype(weight, compute), channel_shape)) : g;
  Grads out(3);
  if (node.needs_grad(0)) {
    Tensor inner = gw;
    if (training)
      inner =
          sub(sub(gw, mean(gw, dims, true, {})), mul(xhat, mean(mul(gw, xhat), dims, true, {})));
    out[0] = in_dtype(mul(invstd, inner), x.dtype());
  }
  if (node.needs_grad(1)) out[1] = in_dtype(sum(mul(g, xhat), dims, false, {}), param_dtype);
  if (node.needs_grad(2)) out[2] = in_dtype(sum(g, dims, false, {}), param_dtype);
  return out;
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps) {
  ops::BatchNorm f =
      ops::batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps);
  // The parameters' dtype (x's, or float32 beside a 16-bit x): their gradients' dtype.
  ScalarType pd = weight.defined() ? weight.dtype() : bias.defined() ? bias.dtype() : x.dtype();
  Recorder r = record("NativeBatchNormBackward0", {&x, &weight, &bias},
                      [training, eps, pd](const FormulaNode& node, const Grads& g, S s) {
                        const Tensor &x = s[0], &w = s[1];
                        if (autograd::GradMode::is_enabled())
                          return recorded_backward(node, g[0], x, w, s[2], s[3], training, eps, pd);
                        ops::BatchNormGrads d = ops::batch_norm_backward(
                            g[0], x, s[2], s[3], w, training, node.needs_grad(0),
                            node.needs_grad(1), node.needs_grad(2), pd);
                        return Grads{d.input, d.weight, d.bias};
                      });
  if (!r) return f.out;
  r.save(x);
  if (weight.defined())
    r.save(weight);
  else
    r.save_none();
  r.save(f.mean);
  r.save(f.invstd);
  set_history(r, {&f.out});
  return f.out;
}

}  // namespace genesis::ag

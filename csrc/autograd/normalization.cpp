// The fused layer norm's and RMS norm's node (Note [Fused row normalization] in
// ops/normalization.cpp): the fused backward kernel, or under create_graph the same formula in
// recorded ops.
#include "ops/normalization.h"
#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

// The backward as recorded ops, in the compute dtype, differentiable again.
Grads recorded_backward(const FormulaNode& node, const Tensor& grad, const Tensor& x,
                        const Tensor& weight, int64_t normalized_ndim, double eps, bool rms) {
  ScalarType compute = x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Tensor xc = in_dtype(x, compute), gc = in_dtype(grad, compute);
  Shape norm_dims, lead_dims;
  for (int64_t d = 0; d < x.ndim(); ++d)
    (d < x.ndim() - normalized_ndim ? lead_dims : norm_dims).push_back(d);
  Shape trailing(x.sizes().end() - normalized_ndim, x.sizes().end());
  Tensor xhat, rstd;
  if (rms) {
    rstd =
        ag::unary(UnaryOp::Rsqrt, add(mean(mul(xc, xc), norm_dims, true, {}), num(eps)), "rsqrt");
    xhat = mul(xc, rstd);
  } else {
    Tensor centred = sub(xc, mean(xc, norm_dims, true, {}));
    rstd = ag::unary(UnaryOp::Rsqrt,
                     add(mean(mul(centred, centred), norm_dims, true, {}), num(eps)), "rsqrt");
    xhat = mul(centred, rstd);
  }
  Tensor gw = weight.defined() ? mul(gc, reshape(in_dtype(weight, compute), trailing)) : gc;
  Grads out(3);
  if (node.needs_grad(0)) {
    Tensor inner = sub(gw, mul(xhat, mean(mul(gw, xhat), norm_dims, true, {})));
    if (!rms) inner = sub(inner, mean(gw, norm_dims, true, {}));
    out[0] = in_dtype(mul(rstd, inner), x.dtype());
  }
  auto column_sum = [&](const Tensor& t) {
    Tensor s = lead_dims.empty() ? t : sum(t, lead_dims, false, {});
    return in_dtype(reshape(s, node.input_info[1].sizes), x.dtype());
  };
  if (node.needs_grad(1)) out[1] = column_sum(mul(gc, xhat));
  if (node.needs_grad(2)) out[2] = column_sum(gc);
  return out;
}

}  // namespace

Tensor row_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight, const Tensor& bias,
                double eps, bool rms, const char* name) {
  ops::RowNorm f = ops::row_norm(x, normalized_ndim, weight, bias, eps, rms, name);
  Recorder r =
      record(rms ? "FusedRmsNormBackward0" : "NativeLayerNormBackward0", {&x, &weight, &bias},
             [normalized_ndim, eps, rms](const FormulaNode& node, const Grads& g, S s) {
               const Tensor &x = s[0], &w = s[1];
               if (autograd::GradMode::is_enabled())
                 return recorded_backward(node, g[0], x, w, normalized_ndim, eps, rms);
               // g[1], when given: the gradient already waiting for x, to add into dx (Note [A
               // gradient summed where it is made] in engine.cpp). g[0] may be 16-bit beside
               // float32 x (Note [A gradient widened where it is used]).
               Tensor partial = g.size() > 1 ? g[1] : Tensor();
               ops::RowNormGrads d = ops::row_norm_backward(
                   g[0], x, s[2], s[3], w, normalized_ndim, rms, node.needs_grad(0),
                   node.needs_grad(1), node.needs_grad(2), partial);
               return Grads{d.input, d.weight, d.bias};
             });
  if (!r) return f.out;
  r.node->sums_partial = true;
  r.node->reads_narrow_grads = true;
  r.save(x);
  if (weight.defined())
    r.save(weight);
  else
    r.save_none();
  if (f.mean.defined())
    r.save(f.mean);
  else
    r.save_none();
  r.save(f.rstd);
  set_history(r, {&f.out});
  return f.out;
}

}  // namespace genesis::ag

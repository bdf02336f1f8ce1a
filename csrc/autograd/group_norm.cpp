// The fused group norm's node (Note [Fused group norm] in ops/group_norm.cpp): the fused
// backward kernel, or under create_graph the same formula in recorded ops.
#include "ops/group_norm.h"
#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

// The backward as recorded ops, in the compute dtype, differentiable again: the rows are
// (N, groups, C / groups * spatial) views, the channels (N, C, spatial) ones.
Grads recorded_group_backward(const FormulaNode& node, const Tensor& grad, const Tensor& x,
                              const Tensor& weight, int64_t groups, double eps) {
  ScalarType compute = x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  int64_t n = x.sizes()[0], c = x.sizes()[1];
  int64_t spatial = 1;
  for (int64_t d = 2; d < x.ndim(); ++d) spatial *= x.sizes()[d];
  const Dims last = Shape{2}, outer = Shape{0, 2};
  Shape rows{n, groups, c / groups * spatial}, channels{n, c, spatial};
  Tensor xr = reshape(in_dtype(x, compute), rows), gc = in_dtype(grad, compute);
  Tensor centred = sub(xr, mean(xr, last, true, {}));
  Tensor rstd = ag::unary(UnaryOp::Rsqrt,
                          add(mean(mul(centred, centred), last, true, {}), num(eps)), "rsqrt");
  Tensor xhat = mul(centred, rstd);
  Tensor gch = reshape(gc, channels);
  Tensor gw = weight.defined() ? mul(gch, reshape(in_dtype(weight, compute), Shape{c, 1})) : gch;
  Grads out(3);
  if (node.needs_grad(0)) {
    Tensor g = reshape(gw, rows);
    Tensor inner =
        sub(sub(g, mean(g, last, true, {})), mul(xhat, mean(mul(g, xhat), last, true, {})));
    out[0] = in_dtype(reshape(mul(rstd, inner), x.sizes()), x.dtype());
  }
  if (node.needs_grad(1))
    out[1] = in_dtype(sum(mul(gch, reshape(xhat, channels)), outer, false, {}), x.dtype());
  if (node.needs_grad(2)) out[2] = in_dtype(sum(gch, outer, false, {}), x.dtype());
  return out;
}

}  // namespace

Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  ops::RowNorm f = ops::group_norm(x, groups, weight, bias, eps);
  Recorder r = record("NativeGroupNormBackward0", {&x, &weight, &bias},
                      [groups, eps](const FormulaNode& node, const Grads& g, S s) {
                        const Tensor &x = s[0], &w = s[1];
                        if (autograd::GradMode::is_enabled())
                          return recorded_group_backward(node, g[0], x, w, groups, eps);
                        ops::RowNormGrads d = ops::group_norm_backward(
                            g[0], x, s[2], s[3], w, groups, node.needs_grad(0), node.needs_grad(1),
                            node.needs_grad(2));
                        return Grads{d.input, d.weight, d.bias};
                      });
  if (!r) return f.out;
  r.save(x);
  if (weight.defined())
    r.save(weight);
  else
    r.save_none();
  r.save(f.mean);
  r.save(f.rstd);
  set_history(r, {&f.out});
  return f.out;
}

}  // namespace genesis::ag

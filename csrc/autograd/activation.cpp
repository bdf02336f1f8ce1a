// Backward formulas of the activations at any parameters (at their defaults they are unary
// ops, autograd/elementwise.cpp) and of round(decimals).
#include <string>

#include "autograd/formula_helpers.h"
#include "ops/activation.h"
#include "ops/elementwise_extra.h"

namespace genesis::ag {

Tensor gelu(const Tensor& t, const std::string& approximate) {
  bool known = approximate == "none" || approximate == "tanh";
  if (!known || !autograd::any_requires_grad({&t})) return ops::gelu(t, approximate);  // raises
  return ag::unary(approximate == "tanh" ? UnaryOp::GeluTanh : UnaryOp::Gelu, t, "gelu");
}

Tensor softplus(const Tensor& t, double beta, double threshold) {
  if (beta == 1.0 && threshold == 20.0) return ag::unary(UnaryOp::Softplus, t, "softplus");
  Tensor out = ops::softplus(t, beta, threshold);
  Recorder r =
      record("SoftplusBackward0", {&t},
             [beta, threshold](const FormulaNode&, const Grads& g, const std::vector<Tensor>& s) {
               // 1 where beta * x > threshold (the identity), sigmoid(beta * x) below.
               Tensor bx = mul(s[0], num(beta));
               Tensor above = ops::binary(BinaryOp::Gt, bx, num(threshold), "softplus");
               return Grads{
                   ag::where(above, g[0], mul(g[0], ag::unary(UnaryOp::Sigmoid, bx, "softplus")))};
             });
  if (!r) return out;
  r.save(t);
  set_history(r, {&out});
  return out;
}

Tensor elu(const Tensor& t, double alpha, double scale, double input_scale) {
  if (alpha == 1.0 && scale == 1.0 && input_scale == 1.0) return ag::unary(UnaryOp::Elu, t, "elu");
  Tensor out = ops::elu(t, alpha, scale, input_scale);
  Recorder r = record("EluBackward0", {&t},
                      [alpha, scale, input_scale](const FormulaNode&, const Grads& g,
                                                  const std::vector<Tensor>& s) {
                        // scale above 0; scale * alpha * input_scale * exp(input_scale * x) at and
                        // below it.
                        Tensor below =
                            mul(ag::unary(UnaryOp::Exp, mul(s[0], num(input_scale)), "elu"),
                                num(alpha * scale * input_scale));
                        Tensor positive = ops::binary(BinaryOp::Gt, s[0], num(0.0), "elu");
                        return Grads{mul(g[0], ag::where(positive, num(scale), below))};
                      });
  if (!r) return out;
  r.save(t);
  set_history(r, {&out});
  return out;
}

Tensor round(const Tensor& t, int64_t decimals, const char* name) {
  if (decimals == 0) return ag::unary(UnaryOp::Round, t, name);
  Tensor out = ops::round(t, decimals, name);
  // A step function: its gradient is zero everywhere it exists, as PyTorch's.
  Recorder r = record("RoundBackward1", {&t},
                      [](const FormulaNode& n, const Grads&, const std::vector<Tensor>&) {
                        return Grads{zeros_like_info(n.input_info[0])};
                      });
  if (r) set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag

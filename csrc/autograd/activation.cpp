// Backward formulas of the activations at any parameters (at their defaults they are unary
// ops, autograd/elementwise.cpp) and of round(decimals).
#include <string>

#include "autograd/formula_helpers.h"
#include "core/errors.h"
#include "ops/activation.h"
#include "ops/elementwise_composed.h"

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

// Note [Piecewise-linear activations]
// leaky_relu and hardtanh pass g where the input is on the identity piece and g * slope (or 0)
// elsewhere, with PyTorch's tests: x > 0 for leaky_relu, and for hardtanh not (x <= min or
// x >= max), so NaN passes g as PyTorch's does. The in-place forms (leaky_relu_, hardtanh_)
// test the result instead of the input, as PyTorch's LeakyReluBackward1/HardtanhBackward1 do:
// the same places for hardtanh and for leaky_relu with slope >= 0, and for a negative slope
// (where the result's sign is the input's flipped) PyTorch refuses the backward, so genesis
// does too. The gradient is a where over a bool mask, recorded as differentiable in g (double
// backward) and in the input with a zero gradient, as PyTorch's.
namespace {
// where(pass, g, g * elsewhere), recorded as a function of g and of x (the tensor the mask was
// taken from) with a zero gradient for x, as PyTorch's *BackwardBackward nodes: a double
// backward differentiates it and finds x in the graph, with zeros.
Tensor piecewise_backward(const char* name, const Tensor& g, const Tensor& x, const Tensor& pass,
                          double elsewhere) {
  Tensor out = elsewhere == 0.0
                   ? ops::where(pass, g, num(0.0))
                   : ops::where(pass, g, ops::binary(BinaryOp::Mul, g, num(elsewhere), name));
  Recorder r = record(
      name, {&g, &x},
      [name, elsewhere](const FormulaNode& n, const Grads& gg, const std::vector<Tensor>& s) {
        Grads r(2);
        if (n.needs_grad(0)) r[0] = piecewise_backward(name, gg[0], s[1], s[0], elsewhere);
        if (n.needs_grad(1)) r[1] = zeros_like_info(n.input_info[1]);
        return r;
      });
  if (!r) return out;
  r.save(pass);
  r.save(x);
  set_history(r, {&out});
  return out;
}
Tensor leaky_pass(const Tensor& x) { return ops::binary(BinaryOp::Gt, x, num(0.0), "leaky_relu"); }
Tensor hardtanh_pass(const Tensor& x, double lo, double hi) {
  Tensor out = ops::binary(BinaryOp::LogicalOr, ops::binary(BinaryOp::Le, x, num(lo), "hardtanh"),
                           ops::binary(BinaryOp::Ge, x, num(hi), "hardtanh"), "hardtanh");
  return ops::unary(UnaryOp::BitNot, out, "hardtanh");
}
}  // namespace

Tensor leaky_relu(const Tensor& t, double negative_slope, bool from_result) {
  Tensor out = ops::leaky_relu(t, negative_slope);
  if (!autograd::any_requires_grad({&t}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  Recorder r = record(from_result ? "LeakyReluBackward1" : "LeakyReluBackward0", {&t},
                      [negative_slope, from_result](const FormulaNode&, const Grads& g,
                                                    const std::vector<Tensor>& s) {
                        GENESIS_CHECK(!from_result || negative_slope >= 0.0, "backward",
                                      "in-place leaky_relu backward with a negative slope is not "
                                      "supported (the result's sign no longer tells where the "
                                      "input was positive); call the out-of-place leaky_relu");
                        return Grads{piecewise_backward("LeakyReluBackwardBackward0", g[0], s[0],
                                                        leaky_pass(s[0]), negative_slope)};
                      });
  if (from_result)
    r.save_output(out);
  else
    r.save(t);
  set_history(r, {&out});
  return out;
}

Tensor hardtanh(const Tensor& t, const Scalar& min_val, const Scalar& max_val, bool from_result) {
  Tensor out = ops::hardtanh(t, min_val, max_val);
  if (!autograd::any_requires_grad({&t}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  double lo = min_val.to_double(), hi = max_val.to_double();
  Recorder r = record(from_result ? "HardtanhBackward1" : "HardtanhBackward0", {&t},
                      [lo, hi](const FormulaNode&, const Grads& g, const std::vector<Tensor>& s) {
                        return Grads{piecewise_backward("HardtanhBackwardBackward0", g[0], s[0],
                                                        hardtanh_pass(s[0], lo, hi), 0.0)};
                      });
  if (from_result)
    r.save_output(out);
  else
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

// Backward formulas of the elementwise composites with several operands: lerp, addcmul,
// addcdiv, and of nan_to_num. The engine reduces each gradient to its operand's shape.
#include "autograd/formula_helpers.h"
#include "ops/activation.h"

namespace genesis::ag {

namespace {
using S = const std::vector<Tensor>&;
}  // namespace

Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight) {
  Tensor out = ops::lerp(start, end, weight);
  const Tensor* w = weight.is_scalar() ? nullptr : &weight.tensor();
  double w_value = weight.is_scalar() ? weight.scalar.to_double() : 0.0;
  Recorder r =
      record(w ? "LerpBackward1" : "LerpBackward0", {&start, &end, w},
             [w_value](const FormulaNode& n, const Grads& g, S s) {
               // out = start + w (end - start)
               Grads r(3);
               const Tensor& wt = s[2];
               if (n.needs_grad(0))
                 r[0] = wt.defined() ? mul(g[0], sub(num(1.0), wt)) : mul(g[0], num(1.0 - w_value));
               if (n.needs_grad(1)) r[1] = wt.defined() ? mul(g[0], wt) : mul(g[0], num(w_value));
               if (n.needs_grad(2)) r[2] = mul(g[0], sub(s[1], s[0]));
               return r;
             });
  if (!r) return out;
  bool need_ends = r.node->needs_grad(2);
  if (need_ends) {
    r.save(start);
    r.save(end);
  } else {
    r.save_none();
    r.save_none();
  }
  if (w)
    r.save(*w);
  else
    r.save_none();
  set_history(r, {&out});
  return out;
}

Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value,
               bool divide) {
  Tensor out = divide ? ops::addcdiv(input, t1, t2, value) : ops::addcmul(input, t1, t2, value);
  double v = value.to_double();
  Recorder r = record(divide ? "AddcdivBackward0" : "AddcmulBackward0", {&input, &t1, &t2},
                      [v, divide](const FormulaNode& n, const Grads& g, S s) {
                        // out = input + v t1 t2 (or v t1 / t2)
                        Grads r(3);
                        Tensor gv = v == 1.0 ? g[0] : mul(g[0], num(v));
                        if (n.needs_grad(0)) r[0] = g[0];
                        if (n.needs_grad(1)) r[1] = divide ? div(gv, s[1]) : mul(gv, s[1]);
                        if (n.needs_grad(2))
                          r[2] = divide ? neg(div(mul(gv, s[0]), mul(s[1], s[1]))) : mul(gv, s[0]);
                        return r;
                      });
  if (!r) return out;
  r.save(t1);
  r.save(t2);
  set_history(r, {&out});
  return out;
}

Tensor nan_to_num(const Tensor& a, double nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  Tensor out = ops::nan_to_num(a, nan, posinf, neginf);
  Recorder r = record("NanToNumBackward0", {&a}, [](const FormulaNode&, const Grads& g, S s) {
    // Only the finite elements pass through: x - x is 0 exactly there.
    Tensor finite = equal(ops::binary(BinaryOp::Sub, s[0], s[0], "sub"), Scalar(0.0));
    return Grads{ag::where(finite, g[0], num(0.0))};
  });
  if (!r) return out;
  r.save(a);
  set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag

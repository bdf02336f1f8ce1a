// Backward of the cross product and of cdist. cross is recorded as what it computes (rolled
// copies, products, a difference: each op differentiable), so its gradient and higher ones come
// from those ops' formulas. cdist keeps its forward (ops::cdist, products for large p = 2) and
// records one node whose formula is PyTorch's: zero distances give a zero gradient.
#include <cmath>

#include "autograd/formula_helpers.h"
#include "ops/convert.h"
#include "ops/products.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

Tensor sign(const Tensor& t) { return ag::unary(UnaryOp::Sign, t, "sign"); }
Tensor abs(const Tensor& t) { return ag::unary(UnaryOp::Abs, t, "abs"); }

// 0 where `den` is 0 (a zero distance), num / den elsewhere.
Tensor ratio_or_zero(const Tensor& numerator, const Tensor& den) {
  Tensor zero = equal(den, num(0.0));
  return ag::where(zero, num(0.0), div(numerator, ag::where(zero, num(1.0), den)));
}

// The gradients of cdist for x1 (..., P, M) and x2 (..., R, M), both expanded to the batch
// shape (the engine sums them back), from g and the distances d (..., P, R).
Grads cdist_grads(const FormulaNode& n, const Tensor& g, const Tensor& x1, const Tensor& x2,
                  const Tensor& d, double p) {
  Grads r(2);
  if (p == 0) {  // a count of differing coordinates: zero gradient
    if (n.needs_grad(0)) r[0] = mul(x1, num(0.0));
    if (n.needs_grad(1)) r[1] = mul(x2, num(0.0));
    return r;
  }
  if (p == 2) {
    // d_pr = |x1_p - x2_r|: grad x1_p = sum_r g_pr (x1_p - x2_r) / d_pr, by products.
    Tensor w = ratio_or_zero(g, d);  // (..., P, R)
    if (n.needs_grad(0))
      r[0] = sub(mul(x1, ag::sum(w, Shape{-1}, true, std::nullopt)), matmul(w, x2));
    if (n.needs_grad(1))
      r[1] = sub(mul(x2, unsqueeze(ag::sum(w, Shape{-2}, false, std::nullopt), -1)),
                 matmul(transpose(w, -1, -2), x1));
    return r;
  }
  // Every pair's difference (..., P, R, M) and its part of the gradient.
  Tensor diff = sub(unsqueeze(x1, -2), unsqueeze(x2, -3));
  Tensor gd = unsqueeze(g, -1);
  Tensor part;
  if (p == 1) {
    part = mul(sign(diff), gd);
  } else if (std::isinf(p)) {
    // The coordinates at the largest |difference| take the gradient (each of them, on ties).
    Tensor at_max = ops::to(equal(abs(diff), unsqueeze(d, -1)), diff.dtype(), diff.device(), false);
    part = mul(mul(sign(diff), at_max), gd);
  } else {
    // sign(diff) |diff|^(p-1) g / d^(p-1); zero where the difference or the distance is 0.
    Tensor a = abs(diff);
    Tensor power =
        ag::where(equal(a, num(0.0)), num(0.0), ag::binary(BinaryOp::Pow, a, num(p - 1), "pow"));
    Tensor scale =
        ratio_or_zero(g, ag::binary(BinaryOp::Pow, d, num(p - 1), "pow"));  // (..., P, R)
    part = mul(mul(sign(diff), power), unsqueeze(scale, -1));
  }
  if (n.needs_grad(0)) r[0] = ag::sum(part, Shape{-2}, false, std::nullopt);
  if (n.needs_grad(1)) r[1] = neg(ag::sum(part, Shape{-3}, false, std::nullopt));
  return r;
}

}  // namespace

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim, const char* op) {
  if (!autograd::any_requires_grad({&a, &b})) return ops::cross(a, b, dim, op);
  Shape shape;
  int64_t d = ops::cross_dim(a, b, dim, op, shape);
  Tensor ea = expand(a, shape), eb = expand(b, shape);
  auto rolled = [d](const Tensor& t, int64_t s) { return roll(t, {s}, {d}); };
  return sub(mul(rolled(ea, -1), rolled(eb, -2)), mul(rolled(ea, -2), rolled(eb, -1)));
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, const std::string& compute_mode) {
  Tensor out = ops::cdist(x1, x2, p, compute_mode);
  Recorder r = record("CdistBackward0", {&x1, &x2}, [p](const FormulaNode& n, const Grads& g, S s) {
    return cdist_grads(n, g[0], s[0], s[1], s[2], p);
  });
  if (!r) return out;
  r.save(x1);
  r.save(x2);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag

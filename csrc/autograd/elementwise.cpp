// Backward formulas of the elementwise ops (PyTorch's derivatives, written from their math).
#include <cmath>

#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/elementwise.h"

namespace genesis::ag {

Tensor zeros_like_info(const autograd::TensorInfo& info) {
  return ops::full(info.sizes, Scalar(0.0), info.dtype, info.device);
}

namespace {

constexpr double kPi = 3.14159265358979323846;

// The gradient of a max/min with ties split in half, as PyTorch: g where `wins`, g/2 where equal.
Tensor extreme_grad(const Tensor& g, const Operand& self, const Operand& other, BinaryOp wins_op) {
  Tensor wins = ops::binary(wins_op, self, other, "maximum");
  Tensor ties = ops::binary(BinaryOp::Eq, self, other, "maximum");
  Tensor half = ag::where(ties, mul(g, num(0.5)), num(0.0));
  return ag::where(wins, g, half);
}

// polygamma(n + more, x), recorded (Note [Polygamma]); n the operand of polygamma(n, x).
Tensor polygamma_of(const Tensor& x, const Operand& n, int64_t more) {
  Operand order = n.is_scalar()
                      ? Operand(Scalar(n.scalar.to_int() + more))
                      : Operand(ops::binary(BinaryOp::Add, n.tensor(), Scalar(more), "polygamma"));
  return ag::binary(BinaryOp::Polygamma, x, order, "polygamma");
}

Tensor u(UnaryOp op, const Tensor& x) { return ag::unary(op, x, "backward"); }

// The derivatives too long for one expression of the op table (genesis/_op_table.py).
// d/dx erf(x) = 2 / sqrt(pi) * exp(-x^2); erfc's is its negative.
Tensor erf_slope(const Tensor& x) {
  return mul(u(UnaryOp::Exp, neg(mul(x, x))), num(2.0 / std::sqrt(kPi)));
}

Tensor silu_slope(const Tensor& x) {
  Tensor s = u(UnaryOp::Sigmoid, x);
  return mul(s, add(num(1.0), mul(x, sub(num(1.0), s))));
}

Tensor gelu_slope(const Tensor& x) {
  Tensor cdf = mul(add(u(UnaryOp::Erf, mul(x, num(1.0 / std::sqrt(2.0)))), num(1.0)), num(0.5));
  Tensor pdf = mul(u(UnaryOp::Exp, mul(mul(x, x), num(-0.5))), num(1.0 / std::sqrt(2.0 * kPi)));
  return add(cdf, mul(x, pdf));
}

Tensor gelu_tanh_slope(const Tensor& x) {
  const double k = std::sqrt(2.0 / kPi), c = 0.044715;
  Tensor x2 = mul(x, x);
  Tensor t = u(UnaryOp::Tanh, mul(mul(x, add(mul(x2, num(c)), num(1.0))), num(k)));
  Tensor left = mul(add(t, num(1.0)), num(0.5));
  Tensor dinner = mul(add(mul(x2, num(3.0 * c)), num(1.0)), num(k));
  Tensor right = mul(mul(mul(x, num(0.5)), sub(num(1.0), mul(t, t))), dinner);
  return add(left, right);
}

// g * f'(x) for silu and the gelus: one fused pass (Note [Fused activation backward]), or,
// when the backward builds a graph, the recorded chain that can be differentiated again.
Tensor activation_backward(BinaryOp op, const Tensor& g, const Tensor& x) {
  if (autograd::GradMode::is_enabled() && autograd::any_requires_grad({&g, &x})) {
    if (op == BinaryOp::SiluBackward) return mul(g, silu_slope(x));
    return mul(g, op == BinaryOp::GeluBackward ? gelu_slope(x) : gelu_tanh_slope(x));
  }
  return ops::binary(op, g, x, "backward");
}

Tensor mish_slope(const Tensor& x) {
  Tensor tsp = u(UnaryOp::Tanh, u(UnaryOp::Softplus, x));
  return add(tsp, mul(mul(x, u(UnaryOp::Sigmoid, x)), sub(num(1.0), mul(tsp, tsp))));
}

// softplus(beta=1, threshold=20): linear above the threshold.
Tensor softplus_backward(const Tensor& g, const Tensor& x) {
  return ag::where(ops::binary(BinaryOp::Gt, x, num(20.0), "softplus"), g,
                   mul(g, u(UnaryOp::Sigmoid, x)));
}

// elu(alpha=1): z + 1 = exp(x) below 0.
Tensor elu_backward(const Tensor& g, const Tensor& x, const Tensor& z) {
  return ag::where(ops::binary(BinaryOp::Gt, x, num(0.0), "elu"), g, mul(g, add(z, num(1.0))));
}

// The backward names of every code, and the unary derivatives (unary_formula, unary_needs).
#include "autograd/elementwise_derivatives.inc"

// Formula of z = op(a, b); A, B are the operands (saved tensors or the numbers).
Grads binary_formula(BinaryOp op, const FormulaNode& n, const Tensor& g, const Operand& A,
                     const Operand& B, const Tensor& z) {
  Grads r(2);
  bool na = n.needs_grad(0), nb = n.needs_grad(1);
  auto zeros = [&](int i) { return zeros_like_info(n.input_info[i]); };
  switch (op) {
    case BinaryOp::Add:
      if (na) r[0] = g;
      if (nb) r[1] = g;
      break;
    case BinaryOp::Sub:
      if (na) r[0] = g;
      if (nb) r[1] = neg(g);
      break;
    case BinaryOp::Mul:
      if (na) r[0] = mul(g, B);
      if (nb) r[1] = mul(g, A);
      break;
    case BinaryOp::Div:
      if (na) r[0] = div(g, B);
      if (nb) r[1] = neg(div(mul(g, A), mul(B, B)));
      break;
    case BinaryOp::TruncDiv:
    case BinaryOp::FloorDiv:
      if (na) r[0] = zeros(0);
      if (nb) r[1] = zeros(1);
      break;
    case BinaryOp::Rem:
    case BinaryOp::Fmod: {
      if (na) r[0] = g;
      BinaryOp q = op == BinaryOp::Rem ? BinaryOp::FloorDiv : BinaryOp::TruncDiv;
      if (nb) r[1] = neg(mul(g, ops::binary(q, A, B, "remainder")));
      break;
    }
    case BinaryOp::Pow: {
      if (na) {
        // d/da a^b = b a^(b-1), and 0 where b == 0 (so 0^0 has gradient 0, as PyTorch).
        if (B.is_scalar()) {
          double b = B.scalar.to_double();
          r[0] = b == 0.0 ? zeros(0)
                          : mul(g, mul(ag::binary(BinaryOp::Pow, A, num(b - 1.0), "pow"), num(b)));
        } else {
          Tensor d = mul(B, ag::binary(BinaryOp::Pow, A, sub(B, num(1.0)), "pow"));
          Tensor b_zero = ops::binary(BinaryOp::Eq, B, num(0.0), "pow");
          r[0] = ag::where(b_zero, num(0.0), mul(g, d));
        }
      }
      if (nb) {
        // d/db a^b = a^b log a, and 0 where a == 0 and b >= 0.
        bool a_scalar = A.is_scalar();
        Tensor log_a =
            a_scalar ? ops::full({}, num(std::log(A.scalar.to_double())), z.dtype(), z.device())
                     : ag::unary(UnaryOp::Log, A.tensor(), "log");
        Tensor d = mul(z, log_a);
        Tensor b_nonneg = ops::binary(BinaryOp::Ge, B, num(0.0), "pow");
        if (a_scalar) {
          r[1] = A.scalar.to_double() == 0.0 ? ag::where(b_nonneg, num(0.0), mul(g, d)) : mul(g, d);
        } else {
          Tensor at_zero = ops::binary(
              BinaryOp::LogicalAnd, ops::binary(BinaryOp::Eq, A, num(0.0), "pow"), b_nonneg, "pow");
          r[1] = ag::where(at_zero, num(0.0), mul(g, d));
        }
      }
      break;
    }
    case BinaryOp::Maximum:
      if (na) r[0] = extreme_grad(g, A, B, BinaryOp::Gt);
      if (nb) r[1] = extreme_grad(g, B, A, BinaryOp::Gt);
      break;
    case BinaryOp::Minimum:
      if (na) r[0] = extreme_grad(g, A, B, BinaryOp::Lt);
      if (nb) r[1] = extreme_grad(g, B, A, BinaryOp::Lt);
      break;
    case BinaryOp::Atan2: {
      Tensor d = add(mul(A, A), mul(B, B));
      if (na) r[0] = div(mul(g, B), d);
      if (nb) r[1] = div(neg(mul(g, A)), d);
      break;
    }
    case BinaryOp::Hypot:
      if (na) r[0] = div(mul(g, A), z);
      if (nb) r[1] = div(mul(g, B), z);
      break;
    case BinaryOp::Copysign:
      if (na) {
        // z / a is +-1; 0 where a == 0.
        Tensor a_zero = ops::binary(BinaryOp::Eq, A, num(0.0), "copysign");
        r[0] = ag::where(a_zero, num(0.0), mul(g, div(z, A)));
      }
      if (nb) r[1] = zeros(1);
      break;
    case BinaryOp::Polygamma:
      // d/dx polygamma(n, x) = polygamma(n + 1, x); n is an integer, outside the graph.
      GENESIS_CHECK(!nb, "backward",
                    "the derivative for 'polygamma' with respect to n is not "
                    "implemented");
      if (na) r[0] = mul(g, polygamma_of(A.tensor(), B, 1));
      break;
    case BinaryOp::Heaviside:  // a RuntimeError, as PyTorch's for heaviside
      GENESIS_FAIL(ErrorKind::Runtime, "backward",
                   "the derivative for 'heaviside' is not "
                   "implemented");
    default:
      GENESIS_FAIL(ErrorKind::NotImplemented, "backward", "the derivative for '",
                   binary_node_name(op), "' is not implemented");
  }
  return r;
}

bool binary_saves_output(BinaryOp op) {
  return op == BinaryOp::Pow || op == BinaryOp::Hypot || op == BinaryOp::Copysign;
}

}  // namespace

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const char* name) {
  const Tensor* ta = a.is_scalar() ? nullptr : &a.tensor();
  const Tensor* tb = b.is_scalar() ? nullptr : &b.tensor();
  if (!autograd::any_requires_grad({ta, tb}) || ops::is_comparison(op) || ops::is_bitwise(op))
    return ops::binary(op, a, b, name);
  Tensor out = ops::binary(op, a, b, name);
  if (!autograd::is_differentiable_dtype(out.dtype())) return out;
  Scalar sa = a.scalar, sb = b.scalar;
  bool a_scalar = ta == nullptr, b_scalar = tb == nullptr;
  Recorder r = record(binary_node_name(op), {ta, tb},
                      [op, sa, sb, a_scalar, b_scalar](const FormulaNode& n, const Grads& g,
                                                       const std::vector<Tensor>& s) {
                        Operand A = a_scalar ? Operand(sa) : Operand(s[0]);
                        Operand B = b_scalar ? Operand(sb) : Operand(s[1]);
                        return binary_formula(op, n, g[0], A, B, s[2]);
                      });
  bool keep = op != BinaryOp::Add && op != BinaryOp::Sub;
  if (keep && ta)
    r.save(*ta);
  else
    r.save_none();
  if (keep && tb)
    r.save(*tb);
  else
    r.save_none();
  if (binary_saves_output(op))
    r.save_output(out);
  else
    r.save_none();
  set_history(r, {&out});
  return out;
}

// PyTorch's threshold_backward at 0 (0 where z <= 0, else g; a NaN z passes g) in one pass
// (BinaryOp::ReluBackward: no bool mask written and read back): differentiable in g, and in z
// with a zero gradient, so a double backward through relu keeps its graph (and gets zeros).
Tensor relu_backward(const Tensor& g, const Tensor& z) {
  Tensor out = ops::binary(BinaryOp::ReluBackward, g, z, "relu");
  Recorder r = record("ThresholdBackwardBackward0", {&g, &z},
                      [](const FormulaNode& n, const Grads& gg, const std::vector<Tensor>& s) {
                        Grads r(2);
                        if (n.needs_grad(0)) r[0] = relu_backward(gg[0], s[0]);
                        if (n.needs_grad(1)) r[1] = zeros_like_info(n.input_info[1]);
                        return r;
                      });
  if (!r) return out;
  r.save(z);
  set_history(r, {&out});
  return out;
}

Tensor unary(UnaryOp op, const Tensor& a, const char* name) {
  if (!autograd::any_requires_grad({&a})) return ops::unary(op, a, name);
  return unary_of_output(op, a, ops::unary(op, a, name));
}

Tensor unary_of_output(UnaryOp op, const Tensor& a, Tensor out) {
  if (!autograd::any_requires_grad({&a}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  Recorder r = record(unary_node_name(op), {&a},
                      [op](const FormulaNode& n, const Grads& g, const std::vector<Tensor>& s) {
                        return Grads{unary_formula(op, n, g[0], s[0], s[1])};
                      });
  int needs = unary_needs(op);
  if (needs & kInput)
    r.save(a);
  else
    r.save_none();
  if (needs & kOutput)
    r.save_output(out);
  else
    r.save_none();
  set_history(r, {&out});
  return out;
}

Tensor where(const Tensor& cond, const Operand& a, const Operand& b) {
  const Tensor* ta = a.is_scalar() ? nullptr : &a.tensor();
  const Tensor* tb = b.is_scalar() ? nullptr : &b.tensor();
  Tensor out = ops::where(cond, a, b);
  if (!autograd::any_requires_grad({ta, tb}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  Recorder r = record("WhereBackward0", {ta, tb},
                      [](const FormulaNode& n, const Grads& g, const std::vector<Tensor>& s) {
                        Grads r(2);
                        if (n.needs_grad(0)) r[0] = ag::where(s[0], g[0], num(0.0));
                        if (n.needs_grad(1)) r[1] = ag::where(s[0], num(0.0), g[0]);
                        return r;
                      });
  r.save(cond);
  set_history(r, {&out});
  return out;
}

Tensor clamp(const Tensor& t, const std::optional<Operand>& min,
             const std::optional<Operand>& max) {
  const Tensor* tmin = min && !min->is_scalar() ? &min->tensor() : nullptr;
  const Tensor* tmax = max && !max->is_scalar() ? &max->tensor() : nullptr;
  Tensor out = ops::clamp(t, min, max);
  if (!autograd::any_requires_grad({&t, tmin, tmax}) ||
      !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  // Masks of where the input passed, and where each bound was taken (computed now: they
  // are bool tensors, saved as inputs of no grad).
  Tensor keep = ops::full(t.sizes(), Scalar(true), ScalarType::Bool, t.device());
  Tensor low, high;
  if (min) {
    low = ops::binary(BinaryOp::Lt, t, *min, "clamp");
    keep = ops::binary(BinaryOp::LogicalAnd, keep, ops::binary(BinaryOp::Ge, t, *min, "clamp"),
                       "clamp");
  }
  if (max) {
    high = ops::binary(BinaryOp::Gt, t, *max, "clamp");
    keep = ops::binary(BinaryOp::LogicalAnd, keep, ops::binary(BinaryOp::Le, t, *max, "clamp"),
                       "clamp");
    if (low.defined())
      low = ops::binary(BinaryOp::LogicalAnd, low, ops::unary(UnaryOp::BitNot, high, "clamp"),
                        "clamp");
  }
  Recorder r = record("ClampBackward1", {&t, tmin, tmax},
                      [](const FormulaNode& n, const Grads& g, const std::vector<Tensor>& s) {
                        Grads r(3);
                        if (n.needs_grad(0)) r[0] = ag::where(s[0], g[0], num(0.0));
                        if (n.needs_grad(1)) r[1] = ag::where(s[1], g[0], num(0.0));
                        if (n.needs_grad(2)) r[2] = ag::where(s[2], g[0], num(0.0));
                        return r;
                      });
  r.save(keep);
  if (low.defined())
    r.save(low);
  else
    r.save_none();
  if (high.defined())
    r.save(high);
  else
    r.save_none();
  set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag

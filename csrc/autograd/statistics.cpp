// Backward formulas of softmax, logsumexp, prod, var/std, the vector norms, the NaN-ignoring
// reductions and the cumulative sum and product.
#include <cmath>
#include <limits>

#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/reduce.h"
#include "ops/reduce_composite.h"
#include "ops/scan.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

Tensor exp(const Tensor& t) { return ag::unary(UnaryOp::Exp, t, "exp"); }
Tensor abs(const Tensor& t) { return ag::unary(UnaryOp::Abs, t, "abs"); }
Tensor sign(const Tensor& t) { return ag::unary(UnaryOp::Sign, t, "sign"); }
Tensor pow(const Tensor& t, double p) { return ag::binary(BinaryOp::Pow, t, num(p), "pow"); }

// `t` converted to dtype first, as the reductions' dtype= does (a recorded cast).
Tensor as_dtype(const Tensor& t, std::optional<ScalarType> dtype) {
  return dtype && *dtype != t.dtype() ? ag::to(t, *dtype, t.device(), false) : t;
}

bool differentiable(const Tensor& in, const Tensor& out) {
  return autograd::any_requires_grad({&in}) && autograd::is_differentiable_dtype(out.dtype());
}

// The product of every other element along the last dim, without dividing (exact when some
// elements are zero): the exclusive cumulative products from the left and from the right.
Tensor others_product(const Tensor& x) {
  int64_t n = x.sizes().back();
  if (n <= 1) return ops::full(x.sizes(), Scalar(1.0), x.dtype(), x.device());
  Shape one = x.sizes();
  one.back() = 1;
  Tensor ones = ops::full(one, Scalar(1.0), x.dtype(), x.device());
  Tensor left = cat({ones, narrow(cumprod(x, -1, std::nullopt), -1, 0, n - 1)}, -1);
  Tensor flipped = flip(x, Shape{-1});
  Tensor right =
      flip(cat({ones, narrow(cumprod(flipped, -1, std::nullopt), -1, 0, n - 1)}, -1), Shape{-1});
  return mul(left, right);
}

// prod's gradient: g times the product of the other reduced elements, for any set of dims (the
// reduced dims moved last and flattened into one).
Tensor prod_grad(const Tensor& g, const Tensor& x, const Dims& dims, bool keepdim) {
  Shape sizes = x.sizes();
  if (sizes.empty()) return g;
  if (x.numel() == 0) return zeros_like_info(autograd::TensorInfo(x));
  std::vector<bool> reduced = reduced_dims(dims, x.ndim());
  Shape order, kept_sizes;
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (!reduced[d]) order.push_back(d), kept_sizes.push_back(sizes[d]);
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (reduced[d]) order.push_back(d);
  Shape flat = kept_sizes;
  flat.push_back(-1);
  Tensor others = others_product(reshape(permute(x, order), flat));
  Shape permuted;
  for (int64_t d : order) permuted.push_back(sizes[d]);
  Shape inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = static_cast<int64_t>(i);
  others = permute(reshape(others, permuted), inverse);
  return mul(keep_reduced_dims(g, sizes, dims, keepdim), others);
}

}  // namespace

Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  if (!autograd::any_requires_grad({&t})) return ops::softmax(t, dim, dtype, log);
  Tensor x = as_dtype(t, dtype);
  Tensor out = ops::softmax(x, dim, std::nullopt, log);
  Recorder r = record(log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", {&x},
                      [dim, log](const FormulaNode&, const Grads& g, S s) {
                        const Tensor& y = s[0];
                        if (!autograd::GradMode::is_enabled()) {  // else recorded for create_graph
                          Tensor fused = ops::softmax_backward(g[0], y, dim, log);
                          if (fused.defined()) return Grads{fused};
                        }
                        Shape d{dim};
                        if (log) return Grads{sub(g[0], mul(exp(y), sum(g[0], d, true, {})))};
                        return Grads{mul(y, sub(g[0], sum(mul(g[0], y), d, true, {})))};
                      });
  if (!r) return out;
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim) {
  Tensor out = ops::logsumexp(t, dims, keepdim);
  if (!differentiable(t, out)) return out;
  Shape in_sizes = t.sizes();
  Recorder r = record("LogsumexpBackward0", {&t},
                      [in_sizes, dims, keepdim](const FormulaNode&, const Grads& g, S s) {
                        Tensor y = keep_reduced_dims(s[1], in_sizes, dims, keepdim);
                        Tensor gk = keep_reduced_dims(g[0], in_sizes, dims, keepdim);
                        return Grads{mul(gk, exp(sub(s[0], y)))};
                      });
  r.save(t);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor prod(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (!autograd::any_requires_grad({&t})) return ops::prod(t, dims, keepdim, dtype);
  Tensor x = as_dtype(t, dtype);
  Tensor out = ops::prod(x, dims, keepdim, std::nullopt);
  Recorder r = record(dims && !dims->empty() ? "ProdBackward1" : "ProdBackward0", {&x},
                      [dims, keepdim](const FormulaNode&, const Grads& g, S s) {
                        return Grads{prod_grad(g[0], s[0], dims, keepdim)};
                      });
  if (!r) return out;
  r.save(x);
  set_history(r, {&out});
  return out;
}

Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim, bool take_sqrt) {
  Tensor out = ops::var(t, dims, correction, keepdim, take_sqrt);
  if (!differentiable(t, out)) return out;
  Shape in_sizes = t.sizes();
  double denom = static_cast<double>(reduced_count(in_sizes, dims)) - correction;
  Recorder r =
      record(take_sqrt ? "StdBackward0" : "VarBackward0", {&t},
             [in_sizes, dims, keepdim, take_sqrt, denom](const FormulaNode&, const Grads& g, S s) {
               const Tensor& x = s[0];
               Tensor centered = sub(x, mean(x, dims, true, std::nullopt));
               Tensor gk = keep_reduced_dims(g[0], in_sizes, dims, keepdim);
               if (!take_sqrt) return Grads{mul(mul(gk, centered), num(2.0 / denom))};
               // d std = d var / (2 std); a zero std gives a zero gradient, as in PyTorch.
               Tensor std = keep_reduced_dims(s[1], in_sizes, dims, keepdim);
               Tensor scale = ag::where(equal(std, num(0.0)), num(0.0), div(gk, std));
               return Grads{mul(mul(scale, centered), num(1.0 / denom))};
             });
  r.save(t);
  if (take_sqrt)
    r.save_output(out);
  else
    r.save_none();
  set_history(r, {&out});
  return out;
}

Tensor vector_norm(const Tensor& t, double ord, const Dims& dims, bool keepdim,
                   std::optional<ScalarType> dtype) {
  if (!autograd::any_requires_grad({&t})) return ops::vector_norm(t, ord, dims, keepdim, dtype);
  Tensor x = as_dtype(t, dtype);
  Tensor out = ops::vector_norm(x, ord, dims, keepdim, std::nullopt);
  Shape in_sizes = x.sizes();
  Recorder r = record(
      "LinalgVectorNormBackward0", {&x},
      [in_sizes, ord, dims, keepdim](const FormulaNode&, const Grads& g, S s) {
        const Tensor& x = s[0];
        Tensor gk = keep_reduced_dims(g[0], in_sizes, dims, keepdim);
        Tensor norm = keep_reduced_dims(s[1], in_sizes, dims, keepdim);
        if (ord == 0.0) return Grads{mul(x, num(0.0))};
        if (ord == 1.0) return Grads{mul(gk, sign(x))};
        if (std::isinf(ord)) {
          // The gradient is shared by the elements whose |x| is the norm (ties split it).
          Tensor picked = ops::to(equal(abs(x), norm), x.dtype(), x.device(), false);
          Tensor count = ops::sum(picked, dims, true, std::nullopt);
          return Grads{mul(mul(gk, sign(x)), div(picked, count))};
        }
        // sign(x) |x|^(p-1) / norm^(p-1); a zero norm gives a zero gradient, as in PyTorch.
        Tensor scaled =
            ord == 2.0 ? div(x, norm) : div(mul(sign(x), pow(abs(x), ord - 1)), pow(norm, ord - 1));
        return Grads{mul(gk, ag::where(equal(norm, num(0.0)), num(0.0), scaled))};
      });
  if (!r) return out;
  r.save(x);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor nansum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (!autograd::any_requires_grad({&t})) return ops::nansum(t, dims, keepdim, dtype);
  Tensor x = as_dtype(t, dtype);
  Tensor out = ops::nansum(x, dims, keepdim, std::nullopt);
  Shape in_sizes = x.sizes();
  Recorder r = record("NansumBackward0", {&x},
                      [in_sizes, dims, keepdim](const FormulaNode&, const Grads& g, S s) {
                        Tensor gk = keep_reduced_dims(g[0], in_sizes, dims, keepdim);
                        return Grads{ag::where(is_nan(s[0]), num(0.0), expand(gk, in_sizes))};
                      });
  if (!r) return out;
  r.save(x);
  set_history(r, {&out});
  return out;
}

Tensor nanmean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (!autograd::any_requires_grad({&t})) return ops::nanmean(t, dims, keepdim, dtype);
  Tensor x = as_dtype(t, dtype);
  Tensor out = ops::nanmean(x, dims, keepdim, std::nullopt);
  Shape in_sizes = x.sizes();
  Recorder r = record(
      "NanmeanBackward0", {&x}, [in_sizes, dims, keepdim](const FormulaNode&, const Grads& g, S s) {
        Tensor nan = is_nan(s[0]);
        Tensor counted =
            ops::to(ops::unary(UnaryOp::BitNot, nan, "not"), s[0].dtype(), s[0].device(), false);
        Tensor count = ops::sum(counted, dims, true, std::nullopt);
        Tensor gk = div(keep_reduced_dims(g[0], in_sizes, dims, keepdim), count);
        return Grads{ag::where(nan, num(0.0), expand(gk, in_sizes))};
      });
  if (!r) return out;
  r.save(x);
  set_history(r, {&out});
  return out;
}

Tensor cumsum(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  if (!autograd::any_requires_grad({&t})) return ops::cumsum(t, dim, dtype);
  Tensor x = as_dtype(t, dtype);
  Tensor out = ops::cumsum(x, dim, std::nullopt);
  if (x.ndim() == 0) return pass_through("CumsumBackward0", x, out);
  Recorder r = record("CumsumBackward0", {&x}, [dim](const FormulaNode&, const Grads& g, S) {
    // Each element reaches every later sum: the reversed cumulative sum of g.
    Shape d{dim};
    return Grads{flip(cumsum(flip(g[0], d), dim, std::nullopt), d)};
  });
  if (!r) return out;
  set_history(r, {&out});
  return out;
}

namespace {
// The most negative finite value of a floating dtype.
double lowest_finite(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float64:
      return std::numeric_limits<double>::lowest();
    case ScalarType::Float16:
      return -65504.0;
    case ScalarType::BFloat16:
      return -3.3895313892515355e38;
    default:
      return std::numeric_limits<float>::lowest();
  }
}
}  // namespace

Tensor logcumsumexp(const Tensor& t, int64_t dim) {
  if (!autograd::any_requires_grad({&t})) return ops::logcumsumexp(t, dim);
  Tensor out = ops::logcumsumexp(t, dim);
  if (t.ndim() == 0) return pass_through("LogcumsumexpBackward0", t, out);
  Recorder r =
      record("LogcumsumexpBackward0", {&t}, [dim](const FormulaNode&, const Grads& g, S s) {
        // y_j = log sum_{i<=j} exp(x_i), so dy_j/dx_i = exp(x_i - y_j) for i <= j and
        // grad_i = sum_{j>=i} g_j exp(x_i - y_j). Summed in log space, one sign of g at a time:
        // exp(x_i + reversed logcumsumexp(log|g_j| - y_j)_i) over the j where g_j > 0, minus the
        // same where g_j < 0, so no exp(x) or exp(-y) overflows. Left-out places take the dtype's
        // lowest finite value (not -inf: under create_graph, log|g|'s derivative is then only ever
        // taken where g is non-zero).
        const Tensor& x = s[0];
        const Tensor& y = s[1];
        Shape d{dim};
        Scalar lowest = num(lowest_finite(g[0].dtype()));
        Tensor log_abs = ag::unary(UnaryOp::Log, ag::unary(UnaryOp::Abs, g[0], "abs"), "log");
        auto part = [&](BinaryOp sign_test) {
          Tensor keep = ops::binary(sign_test, g[0], num(0.0), "logcumsumexp");
          Tensor l = sub(ag::where(keep, log_abs, lowest), y);
          Tensor later = flip(logcumsumexp(flip(l, d), dim), d);
          return ag::unary(UnaryOp::Exp, add(x, later), "exp");
        };
        Tensor gp = part(BinaryOp::Gt), gn = part(BinaryOp::Lt);
        return Grads{sub(gp, gn)};
      });
  if (!r) return out;
  r.save(t);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

Tensor cumprod(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  if (!autograd::any_requires_grad({&t})) return ops::cumprod(t, dim, dtype);
  Tensor x = as_dtype(t, dtype);
  Tensor out = ops::cumprod(x, dim, std::nullopt);
  if (x.ndim() == 0) return pass_through("CumprodBackward0", x, out);
  // Note [cumprod's gradient]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~
  // d/dx_k of sum_i g_i y_i is sum over i >= k of g_i prod_{j <= i, j != k} x_j. Where no x_j
  // before or at k is zero, that is rev_cumsum(g y)_k / x_k. After the first zero of a slice
  // it is 0 (every product has that zero). At the first zero z it is rev_cumsum(g y')_z, with
  // y' the cumprod of x whose first zero is replaced by 1. The masks come from one cumsum of
  // (x == 0): exact with zeros, no data-dependent branch, differentiable again.
  Recorder r = record("CumprodBackward0", {&x}, [dim](const FormulaNode&, const Grads& g, S s) {
    const Tensor &x = s[0], &y = s[1];
    Shape d{dim};
    auto rev_cumsum = [&](const Tensor& t) {
      return flip(cumsum(flip(t, d), dim, std::nullopt), d);
    };
    Tensor zero = equal(x, num(0.0));
    Tensor zero_count = ops::to(zero, ScalarType::Int64, x.device(), false);
    Tensor before = ops::binary(BinaryOp::Sub, ops::cumsum(zero_count, dim, std::nullopt),
                                zero_count, "cumprod_backward");  // zeros before each place
    Tensor first_zero = ops::binary(BinaryOp::LogicalAnd, zero, equal(before, Scalar(int64_t{0})),
                                    "cumprod_backward");
    Tensor after_zero = ops::binary(BinaryOp::Gt, before, Scalar(int64_t{0}), "cumprod_backward");
    Tensor plain = div(rev_cumsum(mul(g[0], y)), ag::where(zero, num(1.0), x));
    Tensor at_zero = rev_cumsum(mul(g[0], cumprod(ag::where(first_zero, num(1.0), x), dim, {})));
    return Grads{ag::where(first_zero, at_zero, ag::where(after_zero, num(0.0), plain))};
  });
  if (!r) return out;
  r.save(x);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag

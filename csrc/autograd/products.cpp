// Backward formulas of the matrix products.
#include <algorithm>
#include <map>
#include <string>

#include "autograd/formula_helpers.h"
#include "core/errors.h"
#include "ops/einsum.h"
#include "ops/matmul.h"
#include "ops/products.h"

namespace genesis::ag {

namespace {

Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }

// matmul's gradients: 1-d operands as the matrices matmul makes of them (a row, a column); the
// engine then sums the broadcast batch dims away (Note [Backward engine]).
Grads matmul_formula(const FormulaNode& n, const Tensor& g, const Tensor& a, const Tensor& b,
                     int64_t a_ndim, int64_t b_ndim) {
  Tensor g2 = g;
  if (a_ndim == 1 && b_ndim == 1) {
    g2 = reshape(g, Shape{1, 1});
  } else if (a_ndim == 1) {
    g2 = unsqueeze(g, -2);
  } else if (b_ndim == 1) {
    g2 = unsqueeze(g, -1);
  }
  Grads r(2);
  if (n.needs_grad(0)) {
    Tensor b2 = b_ndim == 1 ? unsqueeze(b, -1) : b;
    Tensor ga = matmul(g2, mT(b2));
    r[0] = a_ndim == 1 ? squeeze(ga, Shape{-2}) : ga;
  }
  if (n.needs_grad(1)) {
    Tensor a2 = a_ndim == 1 ? unsqueeze(a, 0) : a;
    Tensor gb = matmul(mT(a2), g2);
    r[1] = b_ndim == 1 ? squeeze(gb, Shape{-1}) : gb;
  }
  return r;
}

Tensor recorded_product(const char* name, Tensor out, const Tensor& a, const Tensor& b) {
  int64_t a_ndim = a.ndim(), b_ndim = b.ndim();
  Recorder r =
      record(name, {&a, &b},
             [a_ndim, b_ndim](const FormulaNode& n, const Grads& g, const std::vector<Tensor>& s) {
               return matmul_formula(n, g[0], s[0], s[1], a_ndim, b_ndim);
             });
  // a is read only for b's gradient and b only for a's.
  if (r.node->needs_grad(1))
    r.save(a);
  else
    r.save_none();
  if (r.node->needs_grad(0))
    r.save(b);
  else
    r.save_none();
  set_history(r, {&out});
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (!autograd::any_requires_grad({&a, &b})) return ops::matmul(a, b);
  return recorded_product("MmBackward0", ops::matmul(a, b), a, b);
}

Tensor mm(const Tensor& a, const Tensor& b) {
  if (!autograd::any_requires_grad({&a, &b})) return ops::mm(a, b);
  return recorded_product("MmBackward0", ops::mm(a, b), a, b);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (!autograd::any_requires_grad({&a, &b})) return ops::bmm(a, b);
  return recorded_product("BmmBackward0", ops::bmm(a, b), a, b);
}

// Note [einsum's gradient]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The gradient of operand i of "in_0,...,in_n->out" is the einsum "out,<the others>->in_i" of
// the output's gradient and the other operands: every label of in_i is either kept in out
// (matched with g) or summed against another operand. A label only in_i has, summed away with
// nothing else, is computed without it and broadcast back (unsqueeze + expand). A label twice
// in one operand (a diagonal, "ii->i") is computed for the operand with it once, and the result
// put on the diagonal (diag_embed); more than one repeated label raises at backward.
namespace {

struct EinsumTerms {
  std::vector<std::string> inputs;  // "..." kept as '.'
  std::string output;
};

EinsumTerms parse_einsum(const std::string& equation) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  EinsumTerms terms;
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    std::string term =
        lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t dots;
    while ((dots = term.find("...")) != std::string::npos) term.replace(dots, 3, ".");
    terms.inputs.push_back(term);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    terms.output = eq.substr(arrow + 2);
    size_t dots = terms.output.find("...");
    if (dots != std::string::npos) terms.output.replace(dots, 3, ".");
    return terms;
  }
  // Implicit output: the ellipsis, then the labels seen once, in alphabetical order.
  std::map<char, int> seen;
  bool ellipsis = false;
  for (const std::string& t : terms.inputs)
    for (char c : t) c == '.' ? void(ellipsis = true) : void(++seen[c]);
  if (ellipsis) terms.output += '.';
  for (auto [c, n] : seen)
    if (n == 1) terms.output += c;
  return terms;
}

std::string with_dots(const std::string& term) {
  std::string s;
  for (char c : term) s += c == '.' ? std::string("...") : std::string(1, c);
  return s;
}

Tensor einsum_operand_grad(const Tensor& g, const EinsumTerms& terms, size_t i,
                           const std::vector<Tensor>& operands, const Shape& in_sizes) {
  const std::string& mine = terms.inputs[i];
  int64_t ellipsis_dims = static_cast<int64_t>(in_sizes.size()) -
                          static_cast<int64_t>(mine.size()) +
                          (mine.find('.') != std::string::npos ? 1 : 0);
  // The dim that token `k` of this operand's subscript starts at.
  auto dim_of = [&](size_t k) {
    int64_t d = 0;
    for (size_t j = 0; j < k; ++j) d += mine[j] == '.' ? ellipsis_dims : 1;
    return d;
  };
  for (size_t k = 0; k < mine.size(); ++k) {
    char c = mine[k];
    size_t again = mine.find(c, k + 1);
    if (c == '.' || again == std::string::npos) continue;
    // A label twice ("ii"): the gradient of the diagonal, put back on the diagonal.
    GENESIS_CHECK(std::count(mine.begin(), mine.end(), c) == 2 &&
                      std::count_if(mine.begin(), mine.end(),
                                    [&](char o) {
                                      return o != '.' && o != c &&
                                             std::count(mine.begin(), mine.end(), o) > 1;
                                    }) == 0,
                  "backward", "the derivative of einsum for an operand with subscripts '",
                  with_dots(mine), "' (more than one repeated label) is not implemented");
    int64_t d1 = dim_of(k), d2 = dim_of(again);
    EinsumTerms once = terms;
    once.inputs[i].erase(again, 1);
    Shape sizes = in_sizes;
    sizes.erase(sizes.begin() + d2);
    Tensor diag = einsum_operand_grad(g, once, i, operands, sizes);
    return diag_embed(movedim(diag, Shape{d1}, Shape{-1}), 0, d1, d2);
  }
  std::string others;
  std::vector<Tensor> args{g};
  for (size_t j = 0; j < operands.size(); ++j) {
    if (j == i) continue;
    others += "," + with_dots(terms.inputs[j]);
    args.push_back(operands[j]);
  }
  auto elsewhere = [&](char c) {
    if (terms.output.find(c) != std::string::npos) return true;
    for (size_t j = 0; j < terms.inputs.size(); ++j)
      if (j != i && terms.inputs[j].find(c) != std::string::npos) return true;
    return false;
  };
  // Where the labels that only this operand has sit among its dims.
  std::string kept;
  Shape lone_dims;
  int64_t dim = 0;
  for (char c : mine) {
    if (c == '.') {
      GENESIS_CHECK(elsewhere(c), "backward",
                    "the derivative of einsum for an ellipsis summed away is not implemented");
      kept += c;
      dim += ellipsis_dims;
      continue;
    }
    if (elsewhere(c)) {
      kept += c;
    } else {
      lone_dims.push_back(dim);
    }
    ++dim;
  }
  Tensor r;
  if (terms.output.empty()) {
    // g is 0-d: the others' einsum, scaled by it.
    r = args.size() == 1 ? g
                         : mul(einsum(others.substr(1) + "->" + with_dots(kept),
                                      std::vector<Tensor>(args.begin() + 1, args.end())),
                               g);
  } else {
    r = einsum(with_dots(terms.output) + others + "->" + with_dots(kept), args);
  }
  for (int64_t d : lone_dims) r = unsqueeze(r, d);
  return lone_dims.empty() ? r : expand(r, in_sizes);
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  Tensor out = ops::einsum(equation, operands);
  if (!autograd::any_requires_grad(operands) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  EinsumTerms terms = parse_einsum(equation);
  Recorder r = record("EinsumBackward0", operands,
                      [terms](const FormulaNode& n, const Grads& g, const std::vector<Tensor>& s) {
                        Grads r(s.size());
                        for (size_t i = 0; i < s.size(); ++i)
                          if (n.needs_grad(i))
                            r[i] = einsum_operand_grad(g[0], terms, i, s, n.input_info[i].sizes);
                        return r;
                      });
  if (!r) return out;
  for (const Tensor& t : operands) r.save(t);
  set_history(r, {&out});
  return out;
}

Tensor product_as_einsum(const char* name, Tensor out, const std::string& equation,
                         const std::vector<Tensor>& operands, const Scalar& alpha,
                         const Tensor* added, const Scalar& beta) {
  std::vector<Tensor> inputs{added != nullptr ? *added : Tensor()};
  inputs.insert(inputs.end(), operands.begin(), operands.end());
  if (!autograd::any_requires_grad(inputs) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  EinsumTerms terms = parse_einsum(equation);
  double a = alpha.to_double(), b = beta.to_double();
  Recorder r =
      record(name, inputs,
             [terms, a, b](const FormulaNode& n, const Grads& g, const std::vector<Tensor>& s) {
               Grads r(s.size());
               if (n.needs_grad(0)) r[0] = b == 1.0 ? g[0] : mul(g[0], num(b));
               std::vector<Tensor> ops_(s.begin() + 1, s.end());
               Tensor ga = a == 1.0 ? g[0] : mul(g[0], num(a));
               for (size_t i = 1; i < s.size(); ++i)
                 if (n.needs_grad(i))
                   r[i] = einsum_operand_grad(ga, terms, i - 1, ops_, n.input_info[i].sizes);
               return r;
             });
  if (!r) return out;
  r.save_none();
  for (const Tensor& t : operands) r.save(t);
  set_history(r, {&out});
  return out;
}

Tensor addmm_activation(const Tensor& input, const Tensor& mat1, const Tensor& mat2,
                        const Scalar& beta, const Scalar& alpha, bool use_gelu) {
  const bool wanted = autograd::any_requires_grad({&input, &mat1, &mat2}) &&
                      autograd::is_differentiable_dtype(mat1.dtype());
  if (!wanted) return ops::addmm_activation(input, mat1, mat2, beta, alpha, use_gelu);
  // GELU's derivative reads the pre-activation: addmm (recorded), then gelu (recorded), both
  // from one cuBLASLt call that keeps the pre-activation where it can. Note [Fused matmul
  // epilogues] in ops/products.cpp.
  if (use_gelu) {
    if (auto fused = ops::addmm_gelu_with_preactivation(input, mat1, mat2, beta, alpha)) {
      Tensor z = product_as_einsum("AddmmBackward0", fused->second, "ij,jk->ik", {mat1, mat2},
                                   alpha, &input, beta);
      return unary_of_output(UnaryOp::GeluTanh, z, fused->first);  // CUDA's GELU, as gelu's node
    }
    Tensor z = product_as_einsum("AddmmBackward0",
                                 ops::addmm_preactivation(input, mat1, mat2, beta, alpha),
                                 "ij,jk->ik", {mat1, mat2}, alpha, &input, beta);
    return gelu(z, ops::addmm_gelu_approximate(z));
  }
  // ReLU's reads the output only: the fused forward, and addmm's gradient of relu's one-pass
  // backward of g (PyTorch's rule at NaN; differentiable in g for a double backward).
  Tensor out = ops::addmm_activation(input, mat1, mat2, beta, alpha, false);
  const double a = alpha.to_double(), b = beta.to_double();
  Recorder r = record("AddmmActivationBackward0", {&input, &mat1, &mat2},
                      [a, b](const FormulaNode& n, const Grads& g, const std::vector<Tensor>& s) {
                        Tensor gz = relu_backward(g[0], s[0]);
                        Grads r(3);
                        if (n.needs_grad(0)) r[0] = b == 1.0 ? gz : mul(gz, num(b));
                        Tensor ga = a == 1.0 ? gz : mul(gz, num(a));
                        if (n.needs_grad(1)) r[1] = mm(ga, t(s[2]));
                        if (n.needs_grad(2)) r[2] = mm(t(s[1]), ga);
                        return r;
                      });
  if (!r) return out;
  r.save_output(out);
  r.save(mat1);
  r.save(mat2);
  set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag

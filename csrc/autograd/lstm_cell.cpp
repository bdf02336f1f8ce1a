// The fused LSTM cell's node (Note [Fused LSTM cell] in ops/lstm_cell.cpp): the fused backward
// kernel, or under create_graph the cell's ops recorded from gi, gh and c, differentiable again.
#include "ops/lstm_cell.h"
#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

Tensor sigmoid(const Tensor& t) { return ag::unary(UnaryOp::Sigmoid, t, "sigmoid"); }
Tensor tanh(const Tensor& t) { return ag::unary(UnaryOp::Tanh, t, "tanh"); }

// The gradients of gi, gh, c as recorded ops: the forward's ops again, then their derivatives.
Grads recorded_cell_backward(const FormulaNode& node, const Tensor& dh, const Tensor& dc,
                             const Tensor& gi, const Tensor& gh, const Tensor& c) {
  std::vector<Tensor> gates = chunk(add(gi, gh), 4, -1);
  Tensor i = sigmoid(gates[0]), f = sigmoid(gates[1]), g = tanh(gates[2]), o = sigmoid(gates[3]);
  Tensor c_new = add(mul(f, c), mul(i, g));
  Tensor t = tanh(c_new);
  Tensor zero = mul(c, num(0.0));
  Tensor dhv = dh.defined() ? dh : zero;
  Tensor dct = add(dc.defined() ? dc : zero, mul(mul(dhv, o), sub(num(1.0), mul(t, t))));
  auto sigmoid_grad = [](const Tensor& d, const Tensor& s) {
    return mul(mul(d, s), sub(num(1.0), s));
  };
  Tensor dgates = cat({sigmoid_grad(mul(dct, g), i), sigmoid_grad(mul(dct, c), f),
                       mul(mul(dct, i), sub(num(1.0), mul(g, g))), sigmoid_grad(mul(dhv, t), o)},
                      -1);
  Grads out(3);
  if (node.needs_grad(0)) out[0] = dgates;
  if (node.needs_grad(1)) out[1] = dgates;
  if (node.needs_grad(2)) out[2] = mul(dct, f);
  return out;
}

}  // namespace

std::pair<Tensor, Tensor> lstm_cell(const Tensor& gi, const Tensor& gh, const Tensor& c) {
  ops::LstmCell f = ops::lstm_cell(gi, gh, c);
  Recorder r =
      record("LstmCellBackward0", {&gi, &gh, &c}, [](const FormulaNode& node, const Grads& g, S s) {
        if (autograd::GradMode::is_enabled())
          return recorded_cell_backward(node, g[0], g[1], s[0], s[1], s[2]);
        ops::LstmCellGrads d = ops::lstm_cell_backward(g[0], g[1], s[3], s[2], s[4]);
        return Grads{node.needs_grad(0) ? d.gates : Tensor(),
                     node.needs_grad(1) ? d.gates : Tensor(), node.needs_grad(2) ? d.c : Tensor()};
      });
  if (!r) return {f.h, f.c_new};
  r.save(gi);
  r.save(gh);
  r.save(c);
  r.save(f.act);
  r.save_output(f.c_new, 1);
  set_history(r, {&f.h, &f.c_new});
  return {f.h, f.c_new};
}

}  // namespace genesis::ag

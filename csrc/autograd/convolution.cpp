// Convolution's nodes through cuDNN (ops/convolution.h).
//
// Note [Convolution's three passes]
// The forward pass y = conv(x, w), the input's gradient dx = conv_input(dy, w) and the weight's dw
// = conv_weight(x, dy) are each one cuDNN call, and the set is closed under differentiation: from
// <g, conv(x, w)> = <conv_input(g, w), x> = <conv_weight(x, g), w>, each pass's gradients are
// two of the three passes again. So each node's backward calls the other passes through these
// same functions, which record when a double backward (create_graph) asks, and a gradient
// penalty stays on cuDNN with no formula of its own. The nodes live here, in C++, rather than
// as Python Functions: a convolution's host time is what a small network's step waits for.
#include "ops/convolution.h"
#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"
#include "ops/layout.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

}  // namespace

Tensor convolution(const Tensor& x, const Tensor& w, const ops::ConvolutionOptions& o,
                   const std::string& op) {
  Tensor y = ops::convolution(x, w, o, op.c_str());
  const bool channels_last = ops::channels_last_pass(x, w);
  Recorder r = record("ConvBackward", {&x, &w},
                      [o, op, channels_last](const FormulaNode& node, const Grads& g, S s) {
                        const Tensor &x = s[0], &w = s[1];
                        // a channels-last forward's gradients are channels-last (Note
                        // [Convolution layouts]); under create_graph g stays as it is, so
                        // that the copy need not be recorded
                        Tensor dy = g[0];
                        if (channels_last && !autograd::GradMode::is_enabled())
                          dy = ops::as_channels_last(dy);
                        Grads out(2);
                        if (node.needs_grad(0))
                          out[0] = convolution_backward_input(dy, w, x.sizes(), o, op);
                        if (node.needs_grad(1))
                          out[1] = convolution_backward_weight(x, dy, w.sizes(), o, op);
                        return out;
                      });
  if (!r) return y;
  r.save(x);
  r.save(w);
  set_history(r, {&y});
  return y;
}

Tensor convolution_backward_input(const Tensor& dy, const Tensor& w, const Shape& input_sizes,
                                  const ops::ConvolutionOptions& o, const std::string& op) {
  Tensor dx = ops::convolution_backward_input(dy, w, input_sizes, o, op.c_str());
  Recorder r =
      record("ConvInputBackward", {&dy, &w}, [o, op](const FormulaNode& node, const Grads& g, S s) {
        const Tensor &dy = s[0], &w = s[1];
        Grads out(2);
        if (node.needs_grad(0)) out[0] = convolution(g[0], w, o, op);
        if (node.needs_grad(1)) out[1] = convolution_backward_weight(g[0], dy, w.sizes(), o, op);
        return out;
      });
  if (!r) return dx;
  r.save(dy);
  r.save(w);
  set_history(r, {&dx});
  return dx;
}

Tensor convolution_backward_weight(const Tensor& x, const Tensor& dy, const Shape& weight_sizes,
                                   const ops::ConvolutionOptions& o, const std::string& op) {
  Tensor dw = ops::convolution_backward_weight(x, dy, weight_sizes, o, op.c_str());
  Recorder r = record("ConvWeightBackward", {&x, &dy},
                      [o, op](const FormulaNode& node, const Grads& g, S s) {
                        const Tensor &x = s[0], &dy = s[1];
                        Grads out(2);
                        if (node.needs_grad(0))
                          out[0] = convolution_backward_input(dy, g[0], x.sizes(), o, op);
                        if (node.needs_grad(1)) out[1] = convolution(x, g[0], o, op);
                        return out;
                      });
  if (!r) return dw;
  r.save(x);
  r.save(dy);
  set_history(r, {&dw});
  return dw;
}

}  // namespace genesis::ag

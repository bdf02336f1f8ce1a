// Note [Fused LSTM cell]
// ~~~~~~~~~~~~~~~~~~~~~~
// An LSTM step written as ops (genesis.nn's recurrence, Note [Recurrence in steps]) runs about
// a dozen elementwise ops on the gates, (i, f, g, o) = chunks of gi + gh:
//   c' = sigmoid(f) * c + sigmoid(i) * tanh(g),   h' = sigmoid(o) * tanh(c'),
// and as many backward, each a pass and a dispatch over small tensors: on the 2-core CPU the
// gate arithmetic cost as much as the step's matrix product. Here one pass computes h', c' and
// the activated gates (kept for the backward), and one backward pass turns dh', dc' into the
// gates' gradient (the same for gi and gh) and c's:
//   dc* = dc' + dh' * o * (1 - tanh(c')^2),   dc = dc* * f,
//   d(i, f, g, o) = (dc* g i (1 - i), dc* c f (1 - f), dc* i (1 - g^2), dh' tanh(c') o (1 - o)).
// The activations are ops::math's functors (the eager ops' own), computed in float (double for
// float64) and rounded where the eager ops would store a 16-bit value, so the fused step agrees
// with the ops to rounding. Kernels: cpu/lstm_cell.cpp, kernels/lstm_cell.cu; genesis.nn's
// _FusedLstmCell is the autograd node (its create_graph backward runs the ops).
#include "ops/lstm_cell.h"

#include "core/errors.h"
#include "cpu/lstm_cell.h"
#include "cuda/lstm_cell.h"
#include "ops/convert.h"

namespace genesis::ops {

namespace {

// t is (rows, width) of c's dtype and device.
void check_like(const Tensor& t, const Tensor& c, int64_t width, const char* what) {
  GENESIS_CHECK_TYPE(t.dtype() == c.dtype(), "lstm_cell", "expected ", what, " of dtype ",
                     scalar_type_name(c.dtype()), " (the cell state's), got ",
                     scalar_type_name(t.dtype()));
  GENESIS_CHECK(t.device() == c.device(), "lstm_cell", "expected ", what, " on ", c.device().str(),
                " (the cell state's device), got ", t.device().str());
  GENESIS_CHECK(t.ndim() == 2 && t.sizes()[0] == c.sizes()[0] && t.sizes()[1] == width, "lstm_cell",
                "expected ", what, " of shape (", c.sizes()[0], ", ", width, "), got ",
                shape_str(t.sizes()));
}

}  // namespace

LstmCell lstm_cell(const Tensor& gi, const Tensor& gh, const Tensor& c) {
  GENESIS_CHECK_TYPE(is_floating_point(c.dtype()), "lstm_cell",
                     "expected a floating point cell state, got ", scalar_type_name(c.dtype()));
  GENESIS_CHECK(c.ndim() == 2, "lstm_cell", "expected a (batch, hidden) cell state, got ", c.ndim(),
                " dims");
  int64_t hidden = c.sizes()[1];
  check_like(gi, c, 4 * hidden, "gi");
  check_like(gh, c, 4 * hidden, "gh");
  LstmCell r;
  r.h = Tensor::empty(c.sizes(), c.dtype(), c.device());
  r.c_new = Tensor::empty(c.sizes(), c.dtype(), c.device());
  r.act = Tensor::empty(gi.sizes(), c.dtype(), c.device());
  if (c.numel() == 0) return r;
  lstm_cell_forward_into(contiguous(gi), contiguous(gh), contiguous(c), r.h, r.c_new, r.act);
  return r;
}

LstmCellGrads lstm_cell_backward(const Tensor& dh, const Tensor& dc, const Tensor& act,
                                 const Tensor& c, const Tensor& c_new) {
  int64_t hidden = c.sizes()[1];
  check_like(act, c, 4 * hidden, "the saved gates");
  check_like(c_new, c, hidden, "the saved new cell state");
  if (dh.defined()) check_like(dh, c, hidden, "the gradient of h");
  if (dc.defined()) check_like(dc, c, hidden, "the gradient of c");
  LstmCellGrads g;
  g.gates = Tensor::empty(act.sizes(), c.dtype(), c.device());
  g.c = Tensor::empty(c.sizes(), c.dtype(), c.device());
  if (c.numel() == 0) return g;
  Tensor gh = dh.defined() ? contiguous(dh) : Tensor();
  Tensor gc = dc.defined() ? contiguous(dc) : Tensor();
  lstm_cell_backward_into(gh, gc, contiguous(act), contiguous(c), contiguous(c_new), g.gates, g.c);
  return g;
}

void lstm_cell_forward_into(const Tensor& gi, const Tensor& gh, const Tensor& c, const Tensor& h,
                            const Tensor& c_new, const Tensor& act) {
  if (c.numel() == 0) return;
  if (c.is_cuda())
    cuda::lstm_cell_forward(gi, gh, c, h, c_new, act);
  else
    cpu::lstm_cell_forward(gi, gh, c, h, c_new, act);
}

void lstm_cell_backward_into(const Tensor& dh, const Tensor& dc, const Tensor& act, const Tensor& c,
                             const Tensor& c_new, const Tensor& dgates, const Tensor& dc_prev) {
  if (c.numel() == 0) return;
  if (c.is_cuda())
    cuda::lstm_cell_backward(dh, dc, act, c, c_new, dgates, dc_prev);
  else
    cpu::lstm_cell_backward(dh, dc, act, c, c_new, dgates, dc_prev);
}

}  // namespace genesis::ops

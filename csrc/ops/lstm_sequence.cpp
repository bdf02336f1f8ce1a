// Note [LSTM recurrence in C++]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Note [LSTM recurrence as one node] (genesis/nn/modules/rnn.py) made a layer's walk over time
// one autograd node; its steps were still Python: per step a product with the hidden state, the
// fused cell (Note [Fused LSTM cell]) returning three fresh tensors, and at the end three stacks
// of them, and the backward likewise with a stack of the gates' gradients. Here the loops are
// C++ and each step's results are written straight into their slices of the whole-sequence
// tensors (out, cells, gates; in the backward the gates' gradient), so nothing is stacked, and
// the hidden state's gradient entering a step is one addmm, d_out[t] + dgates[t + 1] @ w_hh. The
// products and the cell kernels are those of the Python steps, so the results are the same.
#include "ops/lstm_sequence.h"

#include "core/errors.h"
#include "ops/convert.h"
#include "ops/elementwise.h"
#include "ops/lstm_cell.h"
#include "ops/matmul.h"
#include "ops/products.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

void check_like(const Tensor& t, const Tensor& like, const Shape& shape, const char* what) {
  GENESIS_CHECK_TYPE(t.dtype() == like.dtype(), "lstm", "expected ", what, " of dtype ",
                     scalar_type_name(like.dtype()), ", got ", scalar_type_name(t.dtype()));
  GENESIS_CHECK(t.device() == like.device(), "lstm", "expected ", what, " on ", like.device().str(),
                ", got ", t.device().str());
  GENESIS_CHECK(t.sizes() == shape, "lstm", "expected ", what, " of shape ", shape_str(shape),
                ", got ", shape_str(t.sizes()));
}

}  // namespace

LstmSequence lstm_sequence(const Tensor& gi, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                           const Tensor& b_hh, bool reverse) {
  GENESIS_CHECK_TYPE(is_floating_point(c0.dtype()), "lstm",
                     "expected a floating point cell state, got ", scalar_type_name(c0.dtype()));
  GENESIS_CHECK(gi.ndim() == 3 && c0.ndim() == 2, "lstm",
                "expected gi (T, B, 4H) and c0 (B, H), got ", shape_str(gi.sizes()), " and ",
                shape_str(c0.sizes()));
  const int64_t steps = gi.sizes()[0], batch = c0.sizes()[0], hidden = c0.sizes()[1];
  check_like(gi, c0, {steps, batch, 4 * hidden}, "gi");
  check_like(h0, c0, {batch, hidden}, "h0");
  check_like(w_hh, c0, {4 * hidden, hidden}, "w_hh");
  if (b_hh.defined()) check_like(b_hh, c0, {4 * hidden}, "b_hh");
  LstmSequence r;
  r.out = Tensor::empty({steps, batch, hidden}, c0.dtype(), c0.device());
  r.cells = Tensor::empty({steps, batch, hidden}, c0.dtype(), c0.device());
  r.gates = Tensor::empty({steps, batch, 4 * hidden}, c0.dtype(), c0.device());
  const Tensor projected = contiguous(gi);
  const Tensor w_t = transpose(w_hh, 0, 1);
  Tensor h = contiguous(h0), c = contiguous(c0);
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = reverse ? steps - 1 - s : s;
    const Tensor gh = b_hh.defined() ? addmm(b_hh, h, w_t, Scalar(1.0), Scalar(1.0)) : mm(h, w_t);
    Tensor h_t = select(r.out, 0, t), c_t = select(r.cells, 0, t);
    lstm_cell_forward_into(select(projected, 0, t), gh, c, h_t, c_t, select(r.gates, 0, t));
    h = h_t;
    c = c_t;
  }
  return r;
}

LstmSequenceGrads lstm_sequence_backward(const Tensor& d_out, const Tensor& d_h, const Tensor& d_c,
                                         const Tensor& c0, const Tensor& w_hh, const Tensor& cells,
                                         const Tensor& gates, bool reverse) {
  const int64_t steps = cells.sizes()[0], batch = c0.sizes()[0], hidden = c0.sizes()[1];
  check_like(cells, c0, {steps, batch, hidden}, "the saved cell states");
  check_like(gates, c0, {steps, batch, 4 * hidden}, "the saved gates");
  check_like(d_out, c0, {steps, batch, hidden}, "the gradient of the output");
  check_like(d_h, c0, {batch, hidden}, "the gradient of h_n");
  check_like(d_c, c0, {batch, hidden}, "the gradient of c_n");
  LstmSequenceGrads g;
  g.gates = Tensor::empty({steps, batch, 4 * hidden}, c0.dtype(), c0.device());
  // the cell state's gradient, ping-ponged between two buffers (a step reads one, writes one)
  Tensor dc = contiguous(d_c);
  Tensor dc_buffers[2] = {Tensor::empty({batch, hidden}, c0.dtype(), c0.device()),
                          Tensor::empty({batch, hidden}, c0.dtype(), c0.device())};
  const Tensor saved_gates = contiguous(gates), saved_cells = contiguous(cells);
  const Tensor c_start = contiguous(c0);
  // the forward's walk backwards: its last step first
  auto step_at = [&](int64_t s) { return reverse ? s : steps - 1 - s; };
  Tensor dh;
  if (steps > 0) dh = binary(BinaryOp::Add, select(d_out, 0, step_at(0)), d_h, "lstm_backward");
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = step_at(s);
    const int64_t prev = reverse ? t + 1 : t - 1;  // the step whose state step t starts from
    const Tensor c_prev = prev < 0 || prev >= steps ? c_start : select(saved_cells, 0, prev);
    Tensor dg = select(g.gates, 0, t);
    Tensor dc_prev = dc_buffers[s % 2];
    lstm_cell_backward_into(dh, dc, select(saved_gates, 0, t), c_prev, select(saved_cells, 0, t),
                            dg, dc_prev);
    dc = dc_prev;
    // the hidden state's gradient entering the next step walked back: d_out there + dg @ w_hh
    if (s + 1 < steps)
      dh = addmm(select(d_out, 0, step_at(s + 1)), dg, w_hh, Scalar(1.0), Scalar(1.0));
    else
      g.h0 = mm(dg, w_hh);
  }
  if (steps == 0) g.h0 = contiguous(d_h);
  g.c0 = dc;
  return g;
}

}  // namespace genesis::ops

#pragma once
// The LSTM cell's gate arithmetic as one fused op, forward and backward (Note [Fused LSTM cell]
// in lstm_cell.cpp).
#include "core/tensor.h"

namespace genesis::ops {

struct LstmCell {
  Tensor h, c_new, act;  // act: the activated gates (i, f, g, o), for the backward
};

// gi and gh (rows, 4 * hidden) are the input's and the hidden state's projections (biases
// included), c (rows, hidden) the cell state; one floating dtype and device.
LstmCell lstm_cell(const Tensor& gi, const Tensor& gh, const Tensor& c);

struct LstmCellGrads {
  Tensor gates, c;  // the gradient of gi + gh (both projections'), and of c
};

// dh, dc: the gradients of h and c_new (undefined: zero).
LstmCellGrads lstm_cell_backward(const Tensor& dh, const Tensor& dc, const Tensor& act,
                                 const Tensor& c, const Tensor& c_new);

// The fused kernels into given outputs (a recurrence's slices of its whole-sequence tensors,
// ops/lstm_sequence.cpp): every tensor contiguous, of the cell state's dtype and device, shaped
// as above (the caller checked).
void lstm_cell_forward_into(const Tensor& gi, const Tensor& gh, const Tensor& c, const Tensor& h,
                            const Tensor& c_new, const Tensor& act);
void lstm_cell_backward_into(const Tensor& dh, const Tensor& dc, const Tensor& act, const Tensor& c,
                             const Tensor& c_new, const Tensor& dgates, const Tensor& dc_prev);

}  // namespace genesis::ops

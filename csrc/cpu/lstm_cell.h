#pragma once
// The fused LSTM cell on the CPU (Note [Fused LSTM cell] in ops/lstm_cell.cpp): contiguous
// tensors of one floating dtype, outputs allocated by the caller.
#include "core/tensor.h"

namespace genesis::cpu {

// gates = gi + gh (rows, 4 * hidden) in PyTorch's order (i, f, g, o); c (rows, hidden).
// Writes h, c_new (rows, hidden) and act (rows, 4 * hidden): the activated gates.
void lstm_cell_forward(const Tensor& gi, const Tensor& gh, const Tensor& c, const Tensor& h,
                       const Tensor& c_new, const Tensor& act);

// dh, dc (rows, hidden; undefined: zero) -> dgates (rows, 4 * hidden), dc_prev (rows, hidden).
void lstm_cell_backward(const Tensor& dh, const Tensor& dc, const Tensor& act, const Tensor& c,
                        const Tensor& c_new, const Tensor& dgates, const Tensor& dc_prev);

}  // namespace genesis::cpu

#pragma once
// An LSTM layer's walk over time (one direction, no projection) as one C++ loop each way (Note
// [LSTM recurrence in C++] in lstm_sequence.cpp); genesis.nn's _LstmRecurrence is its autograd
// node.
#include "core/tensor.h"

namespace genesis::ops {

struct LstmSequence {
  Tensor out, cells, gates;  // (T, B, H) each step's h and c, (T, B, 4H) its activated gates
};

// gi (T, B, 4H): the input's projection of every step (its bias included); h0, c0 (B, H);
// w_hh (4H, H); b_hh (4H) or undefined; one floating dtype and device. `reverse` walks the steps
// from the last. The final state is out's and cells' last step walked (step 0 when reverse).
LstmSequence lstm_sequence(const Tensor& gi, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                           const Tensor& b_hh, bool reverse);

struct LstmSequenceGrads {
  Tensor gates, h0, c0;  // the gates' gradient (T, B, 4H) (gi's, and b_hh's summed), h0's, c0's
};

// From the gradients of out (T, B, H) and of the final h and c (B, H), and the forward's c0,
// w_hh, cells and gates.
LstmSequenceGrads lstm_sequence_backward(const Tensor& d_out, const Tensor& d_h, const Tensor& d_c,
                                         const Tensor& c0, const Tensor& w_hh, const Tensor& cells,
                                         const Tensor& gates, bool reverse);

}  // namespace genesis::ops

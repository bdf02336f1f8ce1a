#pragma once
// Host launchers for the fused LSTM cell (Note [Fused LSTM cell] in ops/lstm_cell.cpp).
#include <cstdint>

namespace genesis::kernels {

// Contiguous (rows, 4 * hidden) gi, gh, act and (rows, hidden) c, h, c_new of dtype code `dtype`
// (a floating point type); computed in float (double for float64). On `stream`.
void launch_lstm_cell_forward(int dtype, const void* gi, const void* gh, const void* c, void* h,
                              void* c_new, void* act, int64_t rows, int64_t hidden, void* stream);

// dh, dc may be null (zero).
void launch_lstm_cell_backward(int dtype, const void* dh, const void* dc, const void* act,
                               const void* c, const void* c_new, void* dgates, void* dc_prev,
                               int64_t rows, int64_t hidden, void* stream);

}  // namespace genesis::kernels

#pragma once
// The CPU's softmax and log_softmax over contiguous rows (Note [CPU row softmax]): x, y and the
// gradients are (rows, cols) contiguous float32 or float64 tensors of one dtype.
#include "core/tensor.h"

namespace genesis::cpu {

// y = softmax(x) (or log_softmax) along each row.
void softmax_rows(const Tensor& x, const Tensor& y, bool log);

// grad_x from y (the forward's output) and grad_y: y * (grad_y - sum(grad_y * y)) for softmax,
// grad_y - exp(y) * sum(grad_y) for log_softmax.
void softmax_rows_backward(const Tensor& grad_y, const Tensor& y, const Tensor& grad_x, bool log);

}  // namespace genesis::cpu

#pragma once
// The fused LSTM cell over contiguous CUDA tensors (kernels/lstm_cell.cu), with the tensor
// contract of cpu/lstm_cell.h. Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

void lstm_cell_forward(const Tensor& gi, const Tensor& gh, const Tensor& c, const Tensor& h,
                       const Tensor& c_new, const Tensor& act);

void lstm_cell_backward(const Tensor& dh, const Tensor& dc, const Tensor& act, const Tensor& c,
                        const Tensor& c_new, const Tensor& dgates, const Tensor& dc_prev);

}  // namespace genesis::cuda

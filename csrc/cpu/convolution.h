#pragma once
// The CPU's convolutions of stride 1 and one group as products over shifted windows (Note
// [Convolution over shifted windows] in convolution.cpp): the three passes of
// ops/convolution.h for CPU tensors. 2-D; a 1-D convolution is lifted to a unit height by the
// caller.
#include "core/tensor.h"

namespace genesis::cpu {

// Symmetric zero padding and dilation per spatial dim (height, width).
struct WindowGeometry {
  int64_t pad_h, pad_w, dilation_h, dilation_w;
};

// Whether the passes below take a convolution of this dtype with c_in input and c_out output
// channels and a kernel of `taps` items: enough channels that a segment of k is worth a slice,
// B's segments whole panels, more than one tap (one is a plain product, no windows).
bool shifted_convolution_usable(ScalarType dtype, int64_t c_in, int64_t c_out, int64_t taps);

// y (N, O, OH, OW) = conv(x (N, C, H, W), w (O, C, KH, KW)); y of any layout, only written.
void shifted_convolution(const Tensor& y, const Tensor& x, const Tensor& w,
                         const WindowGeometry& g);
// dx (N, C, H, W) from the output's gradient dy: the transposed convolution.
void shifted_convolution_backward_input(const Tensor& dx, const Tensor& dy, const Tensor& w,
                                        const WindowGeometry& g);
// dw (O, C, KH, KW) from the input x and the output's gradient dy.
void shifted_convolution_backward_weight(const Tensor& dw, const Tensor& x, const Tensor& dy,
                                         const WindowGeometry& g);

}  // namespace genesis::cpu

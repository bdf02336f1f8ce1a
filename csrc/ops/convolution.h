#pragma once
// Convolution's three passes through cuDNN (Note [Convolutions through cuDNN] in
// cuda/cudnn_convolution.cpp): CUDA tensors only; genesis.nn.functional's convolutions call
// these when genesis.backends.cudnn says so and keep their own path otherwise.
#include "core/tensor.h"

namespace genesis::ops {

// One entry per spatial dim (1 to 3) in padding (symmetric), stride and dilation; the settings
// of genesis.backends.cudnn.
struct ConvolutionOptions {
  Shape padding, stride, dilation;
  int64_t groups = 1;
  bool benchmark = false, deterministic = false, allow_tf32 = false;
};

// Whether a pass reading a and b runs channels-last (Note [Convolution layouts]).
bool channels_last_pass(const Tensor& a, const Tensor& b);
// x (N, C, *spatial), w (K, C / groups, *kernel) -> (N, K, *out).
Tensor convolution(const Tensor& x, const Tensor& w, const ConvolutionOptions& o, const char* op);
// The gradient of convolution's input, of size input_sizes, from the output's gradient dy (the
// transposed convolution of dy).
Tensor convolution_backward_input(const Tensor& dy, const Tensor& w, const Shape& input_sizes,
                                  const ConvolutionOptions& o, const char* op);
// The gradient of convolution's weight, of size weight_sizes, from its input x and dy.
Tensor convolution_backward_weight(const Tensor& x, const Tensor& dy, const Shape& weight_sizes,
                                   const ConvolutionOptions& o, const char* op);

}  // namespace genesis::ops

#pragma once
// Convolution's three passes: through cuDNN for CUDA tensors (Note [Convolutions through cuDNN]
// in cuda/cudnn_convolution.cpp), as products over shifted windows for CPU ones (Note
// [Convolution over shifted windows] in cpu/convolution.cpp, the geometries
// cpu_convolution_usable takes). genesis.nn.functional's convolutions call these when
// genesis.backends.cudnn (CUDA) or cpu_convolution_usable (CPU) says so and keep their own path
// otherwise.
#include "core/tensor.h"

namespace genesis::ops {

// One entry per spatial dim (1 to 3) in padding (symmetric), stride and dilation; the settings
// of genesis.backends.cudnn.
struct ConvolutionOptions {
  Shape padding, stride, dilation;
  int64_t groups = 1;
  bool benchmark = false, deterministic = false, allow_tf32 = false;
};

// Whether CPU tensors of this dtype and these input and weight sizes take the passes below
// (Note [Convolution over shifted windows] in cpu/convolution.cpp): 1-D and 2-D, stride 1, one
// group, enough channels. CUDA tensors always do.
bool cpu_convolution_usable(ScalarType dtype, const Shape& x, const Shape& w,
                            const ConvolutionOptions& o);
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

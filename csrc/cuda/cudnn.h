#pragma once
// Convolutions through cuDNN, loaded at run time (Note [Loading cuDNN] in cudnn.cpp; Note
// [Convolutions through cuDNN] in cudnn_convolution.cpp). A build or machine without cuDNN
// answers cudnn_available() == false and genesis.nn.functional keeps its own path.
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace genesis::cuda {

// Whether cuDNN can be loaded (tried once, on the first call; never raises), and its version
// (cudnnGetVersion: major * 10000 + minor * 100 + patch; 0 when absent).
bool cudnn_available();
int64_t cudnn_version();
// Directories tried after the loader's own search (genesis.backends.cudnn passes the Python
// environment's nvidia-cudnn wheel); only those set before the first load count.
void set_cudnn_search_dirs(std::vector<std::string> dirs);

// One convolution as cuDNN sees it: rank 4 or 5 (a 1-D convolution lifted to 2-D by the
// caller), the sizes of the input x (N, C, *spatial), weight w (K, C / groups, *kernel) and
// output y (N, K, *out), symmetric padding, stride and dilation per spatial dim, and the
// settings of genesis.backends.cudnn.
struct CudnnConvolution {
  ScalarType dtype = ScalarType::Float32;
  int rank = 4;
  int x[5] = {}, w[5] = {}, y[5] = {};
  int pad[3] = {}, stride[3] = {}, dilation[3] = {};
  int groups = 1;
  bool benchmark = false, deterministic = false, allow_tf32 = false;
  bool channels_last = false;  // x, w and y laid out channels-last, else contiguous
};

// CUDA tensors of c's dtype on one device, contiguous or (c.channels_last) channels-last, the
// output written whole, on the current stream. forward: y = conv(x, w); backward_data: dx from dy
// and w (the transposed convolution); backward_filter: dw from x and dy.
void cudnn_convolution_forward(const CudnnConvolution& c, const Tensor& x, const Tensor& w,
                               const Tensor& y, const char* op);
void cudnn_convolution_backward_data(const CudnnConvolution& c, const Tensor& dy, const Tensor& w,
                                     const Tensor& dx, const char* op);
void cudnn_convolution_backward_filter(const CudnnConvolution& c, const Tensor& x, const Tensor& dy,
                                       const Tensor& dw, const char* op);

}  // namespace genesis::cuda

#pragma once
// Recurrent layers (RNN tanh/relu, LSTM, GRU) through cuDNN's RNN API (Note [Recurrences
// through cuDNN] in cudnn_rnn.cpp). Compiled in when the build found cudnn.h (with the cuDNN
// frontend, CMakeLists.txt); cudnn_rnn_usable() answers false (genesis.nn keeps its own steps)
// when the build lacks it, cuDNN cannot be loaded, or cuDNN does not take the configuration.
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace genesis::cuda {

// One recurrent stack as cuDNN sees it: PyTorch's modes and gate orders (cuDNN's are the
// same), no projection, every sequence of the full length.
struct CudnnRnn {
  ScalarType dtype = ScalarType::Float32;
  int mode = 2;  // 0 relu, 1 tanh, 2 LSTM, 3 GRU (cudnnRNNMode_t)
  int input_size = 0, hidden_size = 0, num_layers = 1;
  bool bidirectional = false, bias = true, allow_tf32 = false;
  int device = 0;
};

// Whether cuDNN takes r (a descriptor is set up once per configuration and the answer kept).
bool cudnn_rnn_usable(const CudnnRnn& r, const char* op);

// weights: per layer and direction (layer-major), w_ih (G*H, in), w_hh (G*H, H) and, with
// bias, b_ih and b_hh (G*H), G the gates (4 LSTM, 3 GRU, 1 RNN); contiguous CUDA tensors of
// r.dtype. x (T, B, in), hx (L*D, B, H) and, for LSTM, cx likewise, contiguous.
struct RnnForward {
  Tensor y, hy, cy;     // (T, B, D*H), (L*D, B, H), LSTM's cy (undefined otherwise)
  Tensor weight_space;  // the weights packed as cuDNN lays them out, for the backward
  Tensor reserve;       // training: what the backward reads (undefined in inference)
};
RnnForward cudnn_rnn_forward(const CudnnRnn& r, const Tensor& x, const Tensor& hx, const Tensor* cx,
                             const TensorRefs& weights, bool training, const char* op);

// The gradients of a training forward's inputs and weights (in `weights`' order) from those of
// its outputs; dhy and dcy may be null (zero).
struct RnnBackward {
  Tensor dx, dhx, dcx;
  std::vector<Tensor> dweights;
};
RnnBackward cudnn_rnn_backward(const CudnnRnn& r, const Tensor& x, const Tensor& hx,
                               const Tensor* cx, const Tensor& y, const Tensor& dy,
                               const Tensor* dhy, const Tensor* dcy, const TensorRefs& weights,
                               const Tensor& weight_space, const Tensor& reserve, const char* op);

}  // namespace genesis::cuda

// CPU-only builds: no cuDNN attention (genesis.nn never asks for it without CUDA).
#include "cuda/cudnn_attention.h"

namespace genesis::cuda {

bool cudnn_attention_built() { return false; }

bool cudnn_attention_forward(const Tensor&, const Tensor&, const Tensor&, double, bool,
                             const Tensor&, const Tensor&, const char*) {
  return false;
}

bool cudnn_attention_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                              const Tensor&, const Tensor&, double, bool, const Tensor&,
                              const Tensor&, const Tensor&, const char*) {
  return false;
}

}  // namespace genesis::cuda

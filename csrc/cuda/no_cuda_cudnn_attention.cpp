// Builds without CUDA or without the cuDNN frontend's headers (CMakeLists.txt picks this file
// then, Note [cuDNN's graph API] in cudnn_graph_api.h): no cuDNN attention, and attention runs
// on genesis's own kernels.
#include "cuda/cudnn_attention.h"

namespace genesis::cuda {

bool cudnn_attention_built() { return false; }

bool cudnn_attention_forward(const Tensor&, const Tensor&, const Tensor&, double, bool, double,
                             const Tensor&, const Tensor&, const Tensor&, const char*) {
  return false;
}

bool cudnn_attention_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                              const Tensor&, const Tensor&, double, bool, double, const Tensor&,
                              const Tensor&, const Tensor&, const Tensor&, const char*) {
  return false;
}

}  // namespace genesis::cuda

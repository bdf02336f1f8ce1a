// Builds without CUDA or without the cuDNN frontend's headers (CMakeLists.txt picks this file
// then, Note [cuDNN's graph API] in cudnn_graph_api.h): no graph-API convolutions, and they
// keep cuDNN's legacy calls.
#include "cuda/cudnn_convolution_graph.h"

namespace genesis::cuda {

bool cudnn_graph_convolution(ConvolutionPass, const CudnnConvolution&, const Tensor&, const Tensor&,
                             const Tensor&, const char*) {
  return false;
}

std::pair<int64_t, int64_t> cudnn_graph_convolution_counts() { return {0, 0}; }

}  // namespace genesis::cuda

#pragma once
// Convolutions through cuDNN's graph API (Note [Convolutions through cuDNN's graph API] in
// cudnn_convolution_graph.cpp): float16 and bfloat16 convolutions of one group, where its
// engines are faster than the legacy calls'. Compiled in when the build found the cuDNN
// frontend; answers false (the caller keeps the legacy call, Note [Convolutions through cuDNN])
// when the build lacks it, the problem is not one it takes, or cuDNN has no engine for it.
#include <cstdint>
#include <utility>

#include "core/tensor.h"
#include "cuda/cudnn.h"

namespace genesis::cuda {

enum class ConvolutionPass { Forward, BackwardData, BackwardFilter };

// One pass of c on contiguous CUDA tensors of c's dtype, on the current stream: forward
// y = conv(a = x, b = w); backward data dx = out from a = dy, b = w; backward filter dw = out
// from a = x, b = dy. Returns false, having written nothing, when the graph API does not take
// the problem.
bool cudnn_graph_convolution(ConvolutionPass pass, const CudnnConvolution& c, const Tensor& a,
                             const Tensor& b, const Tensor& out, const char* op);

// How many problems have a graph kept, and how many cuDNN refused (for tests; 0 and 0 in a
// build without the frontend).
std::pair<int64_t, int64_t> cudnn_graph_convolution_counts();

}  // namespace genesis::cuda

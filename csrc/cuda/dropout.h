#pragma once
// The CUDA passes of dropout (Note [Fused dropout] in ops/dropout.cpp): cpu/dropout.h's twins
// for contiguous CUDA tensors on one device, on its current stream. csrc/cuda/dropout.cpp
// implements them; csrc/cuda/no_cuda_dropout.cpp raises in CPU-only builds.
#include "core/tensor.h"
#include "cuda/graph_random.h"

namespace genesis::cuda {

// `rng`: the counters, by value or, during a capture, in a graph's buffer (Note [Random ops in
// graphs] in cuda/graph_random.h).
void fused_dropout(const Tensor& x, const Tensor& out, const Tensor& mask, float keep, double scale,
                   const PhiloxArgs& rng);
void dropout_masked_scale(const Tensor& grad, const Tensor& mask, const Tensor& out, double scale);

}  // namespace genesis::cuda

#pragma once
// The CUDA random fill as the rest of genesis sees it: plain C++, no CUDA headers.
// csrc/cuda/random.cpp implements it; csrc/cuda/no_cuda_random.cpp raises in CPU-only builds.
#include <cstdint>

#include "core/tensor.h"
#include "cuda/graph_random.h"
#include "vocab/philox.h"

namespace genesis::cuda {

// cpu::random_fill's twin (csrc/cpu/random.h) for a contiguous CUDA tensor; runs on the
// current stream of the tensor's device. `rng` holds the counters, by value or, during a
// capture, in a graph's buffer (Note [Random ops in graphs] in cuda/graph_random.h).
void random_fill(const Tensor& out, philox::Kind kind, const PhiloxArgs& rng, int64_t low,
                 uint64_t range);
// cpu::poisson_fill's twin: float64 contiguous CUDA tensors on one device.
void poisson_fill(const Tensor& out, const Tensor& rates, const PhiloxArgs& rng);
// Writes the (key, first counter) that `rng` draws with into `out`, two contiguous int64 items
// on a CUDA device, on its current stream: for a library that reads them from device memory
// (cuDNN's attention dropout), which then draws as a genesis graph's replay does.
void write_philox_args(const Tensor& out, const PhiloxArgs& rng);

}  // namespace genesis::cuda

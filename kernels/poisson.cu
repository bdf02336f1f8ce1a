// Poisson counts on the GPU with the sampler of vocab/poisson.h, so the values match the CPU
// loop's (cpu/random.cpp): one thread per element, each drawing from its own Philox counters.
#include <cuda_runtime.h>

#include "kernels/random.cuh"
#include "vocab/poisson.h"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

__global__ void poisson_kernel(double* __restrict__ out, const double* __restrict__ rates,
                               int64_t n, uint64_t seed, uint64_t offset,
                               const uint64_t* __restrict__ state) {
  if (state) seed = state[0], offset += state[1];  // a graph's draw (Note [Random ops in graphs])
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = philox::poisson(rates[i], seed, offset + static_cast<uint64_t>(i));
}

}  // namespace

void launch_poisson(double* out, const double* rates, int64_t numel, uint64_t seed, uint64_t offset,
                    const uint64_t* state, void* stream) {
  if (numel == 0) return;
  int64_t blocks = (numel + kThreads - 1) / kThreads;
  poisson_kernel<<<static_cast<int>(blocks < 65536 ? blocks : 65536), kThreads, 0,
                   static_cast<cudaStream_t>(stream)>>>(out, rates, numel, seed, offset, state);
}

}  // namespace genesis::kernels

// The CUDA random fill of a CPU-only build: raises, as csrc/cuda/no_cuda.cpp does.
#include "cuda/no_cuda.h"
#include "cuda/random.h"

namespace genesis::cuda {

void random_fill(const Tensor&, philox::Kind, uint64_t, uint64_t, int64_t, uint64_t) {
  unavailable();
}

}  // namespace genesis::cuda

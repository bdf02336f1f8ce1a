// The CUDA random fill of a CPU-only build: raises, as csrc/cuda/no_cuda.cpp does.
#include "core/errors.h"
#include "cuda/random.h"

namespace genesis::cuda {

void random_fill(const Tensor&, philox::Kind, uint64_t, uint64_t, int64_t, uint64_t) {
  GENESIS_FAIL(ErrorKind::Runtime, "cuda",
               "genesis was built without CUDA support, so no CUDA device is available; "
               "use device='cpu' or rebuild with the CUDA toolkit (GENESIS_CUDA=ON)");
}

}  // namespace genesis::cuda

// cuBLAS in a CPU-only build: there are no CUDA tensors to multiply, so this only raises.
#include "core/errors.h"
#include "cuda/blas.h"

namespace genesis::cuda {

void gemm_strided_batched(const Tensor&, const Tensor&, const Tensor&) {
  GENESIS_FAIL(ErrorKind::Runtime, "matmul",
               "genesis was built without CUDA support, so no CUDA device is available");
}

}  // namespace genesis::cuda

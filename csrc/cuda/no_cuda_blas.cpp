// cuBLAS in a CPU-only build: there are no CUDA tensors to multiply, so this only raises.
#include "cuda/blas.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void gemm_strided_batched(const Tensor&, const Tensor&, const Tensor&) { no_device(); }

}  // namespace genesis::cuda

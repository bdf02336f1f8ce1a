// cuBLASLt in a CPU-only build: blas.cpp, its only caller, is not compiled either; nothing to
// multiply.
#include "cuda/blas_lt.h"

namespace genesis::cuda::lt {

bool matmul(const Gemm&) { return false; }
LtStats stats() { return {}; }

}  // namespace genesis::cuda::lt

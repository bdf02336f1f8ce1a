// cuBLAS in a CPU-only build: there are no CUDA tensors to multiply or factor, so these only
// raise.
#include "cuda/blas.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void gemm_strided_batched(const Tensor&, const Tensor&, const Tensor&) { no_device(); }
void getrf_batched(Device, ScalarType, int, void* const*, int, int*, int*, int, const char*) {
  no_device();
}
void getrs_batched(Device, ScalarType, int, int, void* const*, int, const int*, void* const*, int,
                   int, const char*) {
  no_device();
}

}  // namespace genesis::cuda

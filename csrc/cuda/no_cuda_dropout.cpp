// The CUDA dropout of a CPU-only build: raises, as every no_cuda_*.cpp does.
#include "cuda/dropout.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void fused_dropout(const Tensor&, const Tensor&, const Tensor&, float, double, const PhiloxArgs&) {
  no_device();
}

void dropout_masked_scale(const Tensor&, const Tensor&, const Tensor&, double) { no_device(); }

}  // namespace genesis::cuda

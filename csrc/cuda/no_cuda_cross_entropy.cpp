// CPU-only builds: the fused CUDA cross-entropy, never reached (no CUDA tensor can exist).
#include "cuda/cross_entropy.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void cross_entropy_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, int64_t,
                           double, const Tensor&, const Tensor&) {
  no_device();
}

void cross_entropy_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, int64_t,
                            double, const Tensor&, const Tensor&, const Tensor&) {
  no_device();
}

}  // namespace genesis::cuda

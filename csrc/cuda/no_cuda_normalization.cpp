// CPU-only builds: the fused CUDA norms, never reached (no CUDA tensor can exist).
#include "cuda/normalization.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void row_norm_forward(const Tensor&, const Tensor&, const Tensor&, double, bool, const Tensor&,
                      const Tensor&, const Tensor&) {
  no_device();
}

void row_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                       bool, const Tensor&, const Tensor&, const Tensor&, const Tensor&) {
  no_device();
}

}  // namespace genesis::cuda

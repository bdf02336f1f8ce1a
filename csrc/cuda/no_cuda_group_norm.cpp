// CPU-only builds: the fused CUDA group norm, never reached (no CUDA tensor can exist).
#include "cuda/group_norm.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void group_norm_forward(const Tensor&, int64_t, const Tensor&, const Tensor&, double, const Tensor&,
                        const Tensor&, const Tensor&) {
  no_device();
}

void group_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         int64_t, const Tensor&, const Tensor&, const Tensor&) {
  no_device();
}

}  // namespace genesis::cuda

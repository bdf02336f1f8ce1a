// CPU-only builds: the fused CUDA batch norm, never reached (no CUDA tensor can exist).
#include "cuda/batch_norm.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void batch_norm_stats(const Tensor&, double, double, const Tensor&, const Tensor&, const Tensor&,
                      const Tensor&, bool) {
  no_device();
}

void batch_norm_apply(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                      const Tensor&, bool) {
  no_device();
}

void batch_norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         bool, const Tensor&, const Tensor&, const Tensor&, bool) {
  no_device();
}

}  // namespace genesis::cuda

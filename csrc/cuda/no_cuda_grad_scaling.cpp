// CPU-only builds: the CUDA gradient scaling ops, never reached (no CUDA tensor can exist).
#include "cuda/grad_scaling.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void non_finite_check_and_unscale_(const std::vector<Tensor>&, const Tensor&, const Tensor&) {
  no_device();
}
void update_scale_(const Tensor&, const Tensor&, const Tensor&, double, double, int) {
  no_device();
}

}  // namespace genesis::cuda

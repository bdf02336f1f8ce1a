// cuSOLVER in a CPU-only build: there are no CUDA tensors to factor, so these only raise.
#include "cuda/runtime.h"
#include "cuda/solver.h"

namespace genesis::cuda {

void linalg_getrf(const Tensor&, const Tensor&, const Tensor&, const char*) { no_device(); }
void linalg_getrs(const Tensor&, const Tensor&, const Tensor&, const char*) { no_device(); }
bool potrf_in_own_kernel(int64_t, int64_t) { return false; }
bool linalg_potrf(const Tensor&, bool, const Tensor&, const char*) {
  no_device();
  return false;
}
void linalg_geqrf(const Tensor&, const Tensor&, const char*) { no_device(); }
void linalg_orgqr(const Tensor&, const Tensor&, const char*) { no_device(); }
void linalg_gesvd(const Tensor&, const Tensor&, const Tensor&, const Tensor&, bool, const Tensor&,
                  const char*) {
  no_device();
}
void linalg_syevd(const Tensor&, bool, bool, const Tensor&, const Tensor&, const char*) {
  no_device();
}

}  // namespace genesis::cuda

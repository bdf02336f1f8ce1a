// CPU-only builds: the CUDA elementwise entry points exist but are never reached (no CUDA tensor
// can be made), and raise like every no_cuda_*.cpp if they were.
#include "cuda/elementwise.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void binary(ops::BinaryOp, ScalarType, const Tensor&, const Tensor&, const ops::ScalarArg&,
            const Tensor&, const ops::ScalarArg&) {
  no_device();
}
void unary(ops::UnaryOp, const Tensor&, const Tensor&) { no_device(); }
void where(const Tensor&, const Tensor&, const Tensor&, uint64_t, const Tensor&, uint64_t) {
  no_device();
}

}  // namespace genesis::cuda

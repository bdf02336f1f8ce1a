// CPU-only builds: the CUDA elementwise entry points exist but are never reached (no CUDA tensor
// can be made), and raise like the rest of csrc/cuda/no_cuda.cpp if they were.
#include "cuda/elementwise.h"
#include "cuda/no_cuda.h"

namespace genesis::cuda {

void binary(ops::BinaryOp, ScalarType, const Tensor&, const Tensor&, const ops::ScalarArg&,
            const Tensor&, const ops::ScalarArg&) {
  unavailable();
}
void unary(ops::UnaryOp, const Tensor&, const Tensor&) { unavailable(); }
void where(const Tensor&, const Tensor&, const Tensor&, uint64_t, const Tensor&, uint64_t) {
  unavailable();
}

}  // namespace genesis::cuda

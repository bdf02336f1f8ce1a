// CPU-only builds: the CUDA reduction entry point, never reached (no CUDA tensor can exist).
#include "cuda/no_cuda.h"
#include "cuda/reduce.h"

namespace genesis::cuda {

void reduce(ops::ReduceOp, const Tensor&, const ops::ReduceShape&, const Tensor&, const Tensor&,
            const Tensor&, const ops::ReduceFinish&) {
  unavailable();
}

}  // namespace genesis::cuda

// CPU-only builds: the CUDA reduction entry point, never reached (no CUDA tensor can exist).
#include "cuda/reduce.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void reduce(ops::ReduceOp, const Tensor&, const ops::ReduceShape&, const Tensor&, const Tensor&,
            const Tensor&, const ops::ReduceFinish&, const Tensor&) {
  no_device();
}

}  // namespace genesis::cuda

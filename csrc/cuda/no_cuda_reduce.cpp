// CPU-only builds: the CUDA reduction entry point, never reached (no CUDA tensor can exist).
#include "core/errors.h"
#include "cuda/reduce.h"

namespace genesis::cuda {

void reduce(ops::ReduceOp, const Tensor&, const ops::ReduceShape&, const Tensor&, const Tensor&,
            const Tensor&, const ops::ReduceFinish&) {
  GENESIS_FAIL(ErrorKind::Runtime, "cuda", "genesis was built without CUDA support");
}

}  // namespace genesis::cuda

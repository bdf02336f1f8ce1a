// CPU-only builds: the CUDA max pool, never reached (no CUDA tensor can exist).
#include "cuda/max_pool.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void max_pool(const Tensor&, const PoolGeometry&, const Tensor&, const Tensor&) { no_device(); }

}  // namespace genesis::cuda

// CPU-only builds: the CUDA binary search, never reached (no CUDA tensor can exist).
#include "cuda/runtime.h"
#include "cuda/search.h"

namespace genesis::cuda {

void search_sorted(const Tensor&, const Tensor&, const Tensor&, bool) { no_device(); }

}  // namespace genesis::cuda

// bincount's CUDA pieces in a CPU-only build: raise, as every no_cuda_*.cpp does.
#include "cuda/counting.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void value_range(const Tensor&, const Tensor&) { no_device(); }

void count_values(const Tensor&, const Tensor&) { no_device(); }

}  // namespace genesis::cuda

// The CUDA random fill of a CPU-only build: raises, as every no_cuda_*.cpp does.
#include "cuda/random.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void random_fill(const Tensor&, philox::Kind, const PhiloxArgs&, int64_t, uint64_t) { no_device(); }

void poisson_fill(const Tensor&, const Tensor&, const PhiloxArgs&) { no_device(); }

void write_philox_args(const Tensor&, const PhiloxArgs&) { no_device(); }

}  // namespace genesis::cuda

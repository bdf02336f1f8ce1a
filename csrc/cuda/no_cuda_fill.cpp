// Fills of a CPU-only build: everything raises no_device() (cuda/fill.h).
#include "cuda/fill.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void fill(void*, int64_t, int, uint64_t, int) { no_device(); }
void sequence_f64(const Tensor&, double, double, double, int64_t) { no_device(); }
void sequence_i64(const Tensor&, int64_t, int64_t) { no_device(); }

}  // namespace genesis::cuda

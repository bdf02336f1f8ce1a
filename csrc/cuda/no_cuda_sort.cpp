// CPU-only builds: the CUDA sorts, never reached (no CUDA tensor can exist).
#include "cuda/runtime.h"
#include "cuda/sort.h"

namespace genesis::cuda {

void sort_rows(const Tensor&, const Tensor&, bool, const Tensor*) { no_device(); }
void mode_rows(const Tensor&, const Tensor&, const Tensor&, const Tensor&) { no_device(); }
bool select_top_row(const Tensor&, int64_t, bool, const Tensor&) { no_device(); }
void unique_integers(const Tensor&, int, const Tensor&, const Tensor*, const Tensor&) {
  no_device();
}
void unique_floats(const Tensor&, const Tensor&, const Tensor&) { no_device(); }

}  // namespace genesis::cuda

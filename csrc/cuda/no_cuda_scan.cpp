// CPU-only builds: the CUDA scans, never reached (no CUDA tensor can exist).
#include "cuda/runtime.h"
#include "cuda/scan.h"

namespace genesis::cuda {

void scan_rows(ops::ScanOp, const Tensor&, const Tensor&, int64_t) { no_device(); }
void scan_extreme_rows(bool, const Tensor&, const Tensor&, const Tensor&, int64_t) { no_device(); }

}  // namespace genesis::cuda

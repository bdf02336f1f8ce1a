// CPU-only builds: the CUDA optimizer steps, never reached (no CUDA tensor can exist).
#include "cuda/optimizer_step.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void sgd_step(const StepSlots&, const std::vector<StepFactors>&, const SgdRule&) { no_device(); }

void adam_step(const StepSlots&, const std::vector<StepFactors>&, const AdamRule&) { no_device(); }

}  // namespace genesis::cuda

// CPU-only builds: the CUDA optimizer steps, never reached (no CUDA tensor can exist).
#include "cuda/optimizer_step.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const SgdRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AdamRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const RmspropRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AdagradRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AdamaxRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AdadeltaRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const NadamRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const RadamRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const LionRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const RpropRule&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AsgdRule&) {
  no_device();
}

}  // namespace genesis::cuda

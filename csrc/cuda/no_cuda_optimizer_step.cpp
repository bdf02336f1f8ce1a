// CPU-only builds: the CUDA optimizer steps, never reached (no CUDA tensor can exist).
#include "cuda/optimizer_step.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const SgdRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AdamRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const RmspropRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AdagradRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AdamaxRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AdadeltaRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const NadamRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const RadamRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const LionRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const RpropRule&,
                    const DeviceScalars&) {
  no_device();
}
void optimizer_step(const StepSlots&, const std::vector<StepFactors>&, const AsgdRule&,
                    const DeviceScalars&) {
  no_device();
}

}  // namespace genesis::cuda

#pragma once
// The CUDA optimizer steps (Note [Optimizer steps] in ops/optimizer_step.cpp): a multi-tensor
// launch per kernels' StepTable::kMaxTensors tensors, on the current stream. slots[0] the
// parameters, slots[1] their gradients, then the rule's states, an empty list for a state the call
// does not hold (Note [Optimizer rules] in vocab/optimizer_rules.h), then under master weights
// the 16-bit parameters that take the stepped float32 values rounded (else an empty list; the
// gradients then have the 16-bit dtype, the rest float32); every tensor contiguous, on
// one device, of one floating dtype, with its parameter's numel. factors[i]: tensor i's
// StepFactors.
#include <vector>

#include "core/tensor.h"
#include "vocab/optimizer_rules.h"

namespace genesis::cuda {

using StepSlots = std::vector<TensorRefs>;

// Capturable steps (Note [Capturable steps] in vocab/optimizer_rules.h): `counts` empty, or each
// tensor's step count (a one-element float32 tensor on its device), incremented here before the
// step and turned into the tensor's factors on the device (factors[i] are then unused);
// `states`: with counts, the rule's scalar states (DeviceStatesOf<Rule> lists of one-element
// float32 tensors on the device, one per tensor), advanced here; `lr` null, or a one-element
// float32/float64 tensor on the device read for the rule's lr. Only for rules with
// kCountsOnDevice / kLrOnDevice.
struct DeviceScalars {
  TensorRefs counts;
  std::vector<TensorRefs> states;
  const Tensor* lr = nullptr;
};

// One overload per rule of vocab/optimizer_rules.h.
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const SgdRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdamRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RmspropRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdagradRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdamaxRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdadeltaRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const NadamRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RadamRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const LionRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RpropRule& rule, const DeviceScalars& scalars = {});
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AsgdRule& rule, const DeviceScalars& scalars = {});

}  // namespace genesis::cuda

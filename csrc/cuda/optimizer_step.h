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

// One overload per rule of vocab/optimizer_rules.h.
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const SgdRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdamRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RmspropRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdagradRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdamaxRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AdadeltaRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const NadamRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RadamRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const LionRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const RpropRule& rule);
void optimizer_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
                    const AsgdRule& rule);

}  // namespace genesis::cuda

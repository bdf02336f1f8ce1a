#pragma once
// The CPU's optimizer steps (Note [Optimizer steps] in ops/optimizer_step.cpp): slots[0] the
// parameters, slots[1] their gradients, then the rule's states (Note [Optimizer rules] in
// vocab/optimizer_rules.h); every tensor contiguous, on the CPU, of one floating dtype, with its
// parameter's numel. factors[i]: tensor i's StepFactors.
#include <vector>

#include "core/tensor.h"
#include "vocab/optimizer_rules.h"

namespace genesis::cpu {

using StepSlots = std::vector<std::vector<Tensor>>;

void sgd_step(const StepSlots& slots, const std::vector<StepFactors>& factors, const SgdRule& rule);
void adam_step(const StepSlots& slots, const std::vector<StepFactors>& factors,
               const AdamRule& rule);

}  // namespace genesis::cpu

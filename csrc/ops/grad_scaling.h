#pragma once
// GradScaler's fused ops (genesis.amp.GradScaler; Note [Gradient scaling] in grad_scaling.cpp):
// genesis._amp_foreach_non_finite_check_and_unscale_ and genesis._amp_update_scale_, as PyTorch's.
#include <vector>

#include "core/tensor.h"

namespace genesis::ops {

// Multiplies every gradient in place by inv_scale and sets found_inf to 1 when any of them
// holds an inf or a NaN (found_inf is otherwise left as it is). found_inf and inv_scale:
// one-element float32 tensors on the gradients' device.
void non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                   const Tensor& inv_scale);

// The scale after a step: backed off (and growth_tracker reset) when found_inf is non-zero,
// else growth_tracker counts the step and, every growth_interval steps, the scale grows unless
// that would make it inf. scale and found_inf: one-element float32, growth_tracker:
// one-element int32, all on one device. Returns scale.
Tensor update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                     double growth_factor, double backoff_factor, int64_t growth_interval);

}  // namespace genesis::ops

#pragma once
// The CUDA gradient scaling ops (Note [Gradient scaling] in ops/grad_scaling.cpp), on the
// current stream: contiguous CUDA tensors on one device, checked by the front end; one launch
// per kernels' ScaleTable::kMaxTensors gradients of one dtype.
#include <vector>

#include "core/tensor.h"

namespace genesis::cuda {

// grads: contiguous, of one floating dtype; found_inf, inv_scale: one-element float32.
void non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                   const Tensor& inv_scale);
void update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                   double growth_factor, double backoff_factor, int growth_interval);

}  // namespace genesis::cuda

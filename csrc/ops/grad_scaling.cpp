// Note [Gradient scaling]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Mixed-precision training multiplies the loss by a scale so that small float16 gradients do
// not flush to zero, and divides the gradients by it before the optimizer step; a step whose
// gradients hold an inf or a NaN is skipped and the scale backed off (genesis.amp.GradScaler,
// PyTorch's algorithm). Unscaling reads and writes every gradient once, so, like the optimizer
// steps (Note [Optimizer steps]), it is one call over all of them: one pass per tensor on the
// CPU, one multi-tensor launch per table of gradients on CUDA (kernels/grad_scaling.cu), which
// also notes a non-finite value in found_inf on the device. The scale update is a few scalar
// operations on the scale's device, so neither op waits for the device; GradScaler.step reads
// found_inf once, as PyTorch's does. Gradients that are not contiguous go through contiguous
// copies that are copied back; a one-element tensor is always contiguous.
#include "ops/grad_scaling.h"

#include <map>
#include <string>
#include <utility>

#include "core/errors.h"
#include "cpu/grad_scaling.h"
#include "cuda/grad_scaling.h"
#include "ops/convert.h"
#include "ops/copy.h"

namespace genesis::ops {

namespace {

void check_scalar(const Tensor& t, ScalarType dtype, const char* op, const char* what,
                  const char* dtype_name) {
  GENESIS_CHECK(t.defined() && t.numel() == 1, op, what, " must be a 1-element tensor.");
  GENESIS_CHECK(t.dtype() == dtype, op, what, " must be a ", dtype_name, " tensor.");
}

}  // namespace

void non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                   const Tensor& inv_scale) {
  const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  check_scalar(found_inf, ScalarType::Float32, op, "found_inf", "float");
  check_scalar(inv_scale, ScalarType::Float32, op, "inv_scale", "float");
  GENESIS_CHECK(found_inf.device() == inv_scale.device(), op,
                "found_inf and inv_scale must be on one device, got ", found_inf.device().str(),
                " and ", inv_scale.device().str());
  check_writable(found_inf, op);
  // One (dtype) part per call of the backend, with contiguous stand-ins.
  std::map<int, std::vector<Tensor>> parts;
  std::vector<std::pair<Tensor, Tensor>> write_back;  // (original, contiguous stand-in)
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    GENESIS_CHECK(g.defined(), op, "grad ", i, " is undefined");
    GENESIS_CHECK(g.device() == found_inf.device(), op, "grad ", i, " is on ", g.device().str(),
                  " but found_inf and inv_scale are on ", found_inf.device().str());
    GENESIS_CHECK_TYPE(is_floating_point(g.dtype()), op, "grad ", i,
                       " must be a floating point tensor, got ", scalar_type_name(g.dtype()));
    check_writable(g, op);
    if (g.numel() == 0) continue;
    Tensor dense = g.is_contiguous() ? g : contiguous(g);
    if (!g.is_contiguous()) write_back.emplace_back(g, dense);
    parts[static_cast<int>(g.dtype())].push_back(dense);
  }
  for (const auto& [dtype, part] : parts) {
    if (found_inf.is_cuda())
      cuda::non_finite_check_and_unscale_(part, found_inf, inv_scale);
    else
      cpu::non_finite_check_and_unscale_(part, found_inf, inv_scale);
  }
  for (const auto& [original, dense] : write_back) copy_(original, dense);
}

Tensor update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                     double growth_factor, double backoff_factor, int64_t growth_interval) {
  const char* op = "_amp_update_scale_";
  check_scalar(scale, ScalarType::Float32, op, "current_scale", "float");
  check_scalar(growth_tracker, ScalarType::Int32, op, "growth_tracker", "int");
  check_scalar(found_inf, ScalarType::Float32, op, "found_inf", "float");
  GENESIS_CHECK(scale.device() == growth_tracker.device() && scale.device() == found_inf.device(),
                op, "current_scale, growth_tracker and found_inf must be on one device");
  check_writable(scale, op);
  check_writable(growth_tracker, op);
  // The factors stay double: the products are rounded once to float, as PyTorch's.
  auto interval = static_cast<int>(growth_interval);
  if (scale.is_cuda())
    cuda::update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, interval);
  else
    cpu::update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, interval);
  return scale;
}

}  // namespace genesis::ops

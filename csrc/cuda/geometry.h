#pragma once
// Loop plans to kernel geometries (Note [Kernel geometry] in kernels/geometry.h), for the CUDA
// host code of every strided kernel.
#include <array>

#include "core/loop_plan.h"
#include "kernels/geometry.h"

namespace genesis::cuda {

using KernelBases = std::array<char*, kernels::kMaxKernelOperands>;

// The geometry of a plan of at most kMaxKernelDims dims.
inline kernels::Geometry geometry_of(const LoopPlan& plan) {
  kernels::Geometry g;
  g.ndim = static_cast<int>(plan.ndim());
  g.numel = plan.numel;
  for (int d = 0; d < g.ndim; ++d) {
    g.sizes[d] = plan.sizes[d];
    for (int k = 0; k < plan.noperands; ++k) g.strides[k][d] = plan.byte_strides[k][d];
  }
  return g;
}

// Calls launch(geometry, bases) once for a plan that fits a kernel; a plan with more dims is
// cut along its outermost dim, one piece per index, recursively, each operand's base (nullptr
// for scalar operands stays nullptr) moved to its piece.
template <typename Launch>
void for_each_geometry(const LoopPlan& plan, KernelBases bases, const Launch& launch) {
  if (plan.numel == 0) return;
  if (plan.ndim() <= kernels::kMaxKernelDims) {
    kernels::Geometry g = geometry_of(plan);
    launch(g, bases);
    return;
  }
  LoopPlan inner = plan;
  int64_t outer = plan.sizes.back();
  inner.sizes.pop_back();
  for (int k = 0; k < plan.noperands; ++k) inner.byte_strides[k].pop_back();
  inner.numel = plan.numel / outer;
  for (int64_t i = 0; i < outer; ++i) {
    KernelBases b = bases;
    for (int k = 0; k < plan.noperands; ++k)
      if (b[k] != nullptr) b[k] += i * plan.byte_strides[k].back();
    for_each_geometry(inner, b, launch);
  }
}

}  // namespace genesis::cuda

// Elementwise ops on CUDA: the loop plan turned into kernel geometry (kernels/elementwise.cuh).
#include "cuda/elementwise.h"

#include <array>

#include "core/loop_plan.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/geometry.h"
#include "cuda/stream.h"
#include "kernels/elementwise.cuh"

namespace genesis::cuda {

namespace {

// Runs launch(geometry, bases) for the plan (Note [Kernel geometry]); a plan of one dense dim
// for every tensor operand runs the flat loop.
template <typename Launch>
void launch_plan(const LoopPlan& plan, int out_device, const int64_t* itemsizes,
                 const KernelBases& bases, const Launch& launch) {
  bool flat = is_flat(plan, itemsizes);
  for_each_geometry(plan, bases, [&](kernels::Geometry& g, const KernelBases& b) {
    g.contiguous = flat;
    g.device = out_device;
    launch(g, b);
  });
}

// The launch for an elementwise op: dense operands of one shape go straight to a flat
// geometry (the common case, and the one whose host time matters: no plan is built).
template <typename Launch>
void launch_elementwise(const Tensor& out, const Tensor* const* inputs, int ninputs,
                        const int64_t* itemsizes, const KernelBases& bases, const Launch& launch) {
  if (elementwise_is_flat(out, inputs, ninputs)) {
    kernels::Geometry g;
    g.ndim = 1;
    g.numel = out.numel();
    g.sizes[0] = g.numel;
    for (int k = 0; k <= ninputs; ++k) g.strides[k][0] = itemsizes[k];
    g.contiguous = true;
    g.device = out.device().index;
    launch(g, bases);
    return;
  }
  launch_plan(plan_elementwise(out, inputs, ninputs), out.device().index, itemsizes, bases, launch);
}

void* stream_of(int device) { return reinterpret_cast<void*>(current_stream(device)); }

}  // namespace

void binary(ops::BinaryOp op, ScalarType dtype, const Tensor& out, const Tensor& a,
            const ops::ScalarArg& sa, const Tensor& b, const ops::ScalarArg& sb) {
  if (out.numel() == 0) return;
  const Tensor* inputs[2] = {&a, &b};
  int64_t items[3] = {static_cast<int64_t>(out.itemsize()),
                      a.defined() ? static_cast<int64_t>(a.itemsize()) : 0,
                      b.defined() ? static_cast<int64_t>(b.itemsize()) : 0};
  int device = out.device().index;
  DeviceGuard guard(device);
  void* stream = stream_of(device);
  launch_elementwise(
      out, inputs, 2, items, {written_base(out), read_base(a), read_base(b), nullptr},
      [&](const kernels::Geometry& g, const std::array<char*, 4>& p) {
        kernels::launch_binary(op, static_cast<int>(dtype), p[0], p[1], p[2], sa, sb, g, stream);
      });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void unary(ops::UnaryOp op, const Tensor& out, const Tensor& a) {
  if (out.numel() == 0) return;
  const Tensor* inputs[1] = {&a};
  int64_t items[2] = {static_cast<int64_t>(out.itemsize()), static_cast<int64_t>(a.itemsize())};
  int device = out.device().index;
  DeviceGuard guard(device);
  void* stream = stream_of(device);
  launch_elementwise(out, inputs, 1, items, {written_base(out), read_base(a), nullptr, nullptr},
                     [&](const kernels::Geometry& g, const std::array<char*, 4>& p) {
                       kernels::launch_unary(op, static_cast<int>(out.dtype()), p[0], p[1], g,
                                             stream);
                     });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, uint64_t a_bits, const Tensor& b,
           uint64_t b_bits) {
  if (out.numel() == 0) return;
  const Tensor* inputs[3] = {&cond, &a, &b};
  int64_t items[4] = {static_cast<int64_t>(out.itemsize()), 1,
                      a.defined() ? static_cast<int64_t>(a.itemsize()) : 0,
                      b.defined() ? static_cast<int64_t>(b.itemsize()) : 0};
  int device = out.device().index;
  DeviceGuard guard(device);
  void* stream = stream_of(device);
  launch_elementwise(
      out, inputs, 3, items, {written_base(out), read_base(cond), read_base(a), read_base(b)},
      [&](const kernels::Geometry& g, const std::array<char*, 4>& p) {
        kernels::launch_where(static_cast<int>(out.itemsize()), p[0], p[1], p[2], p[3],
                              !a.defined(), a_bits, !b.defined(), b_bits, g, stream);
      });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

#pragma once
// Note [Kernel geometry]
// Every strided kernel (copies and casts, elementwise ops, the index loops) takes one Geometry:
// a LoopPlan's iteration shape (innermost dim first) and each operand's byte strides, at most
// kMaxKernelDims dims and kMaxKernelOperands operands, operand 0 the one the loop follows (the
// output, or the values of a scatter). The host side builds it in one place,
// cuda::for_each_geometry (csrc/cuda/geometry.h), which also owns the one rule for plans with
// more dims than a kernel takes: they are cut along their outermost dims into several launches,
// each operand's base moved to the piece. Plain C++, so host code includes it too.
#include <cstdint>

namespace genesis::kernels {

constexpr int kMaxKernelDims = 8;
constexpr int kMaxKernelOperands = 4;

struct Geometry {
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxKernelDims] = {};
  int64_t strides[kMaxKernelOperands][kMaxKernelDims] = {};
  bool contiguous = false;  // every tensor operand dense in the same order: a flat loop
  int device = -1;          // the current device (Note [Driver launches]), -1: not known
};

}  // namespace genesis::kernels

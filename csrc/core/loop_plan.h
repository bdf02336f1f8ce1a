#pragma once
// Note [Loop planning]
// Every strided loop (copies and casts now, elementwise ops later, CPU and CUDA alike) runs over
// a LoopPlan: the iteration shape with size-1 dims dropped, dims ordered so that operand 0 (the
// output) walks memory innermost-first, and neighbouring dims merged wherever every operand
// steps through them as one. A transposed copy stays 2-D; a contiguous one becomes 1-D.
#include <array>
#include <cstdint>
#include <initializer_list>

#include "core/shape.h"
#include "core/tensor.h"

namespace genesis {

constexpr int kMaxLoopOperands = 4;

struct LoopPlan {
  int noperands = 0;
  Shape sizes;                                       // innermost first
  std::array<Shape, kMaxLoopOperands> byte_strides;  // per operand, innermost first
  int64_t numel = 0;

  int64_t ndim() const { return static_cast<int64_t>(sizes.size()); }
};

// `element_strides[k]` are operand k's strides (in elements, already broadcast to `sizes`, zero
// on broadcast dims), `itemsizes[k]` its element size.
LoopPlan plan_loop(const Shape& sizes, const Shape* const* element_strides,
                   const int64_t* itemsizes, int noperands);

// The plan over `first`'s shape for tensor operands already broadcast to it (operand 0 first).
LoopPlan plan_operands(const Tensor& first, std::initializer_list<const Tensor*> operands);

// Strides of `strides` (for `sizes`) seen as broadcast to `target` (NumPy rules: missing leading
// dims and size-1 dims get stride 0). The caller has checked that the shapes broadcast.
Shape broadcast_strides(const Shape& sizes, const Shape& strides, const Shape& target);

// The plan of an elementwise op: operand 0 is `out`, then `inputs` (each already broadcast to
// out's shape; an undefined tensor is a scalar operand and gets zero strides). When every input
// has out's sizes and all are contiguous, the plan is one flat dim without further work.
LoopPlan plan_elementwise(const Tensor& out, const Tensor* const* inputs, int ninputs);
// Whether that plan is one flat dim: out contiguous, every defined input contiguous with out's
// sizes, or all of them channels-last (Note [Layouts that results keep] in ops/layout.cpp). The
// CUDA launchers test this first and skip the plan (and its vectors) on small ops.
bool elementwise_is_flat(const Tensor& out, const Tensor* const* inputs, int ninputs);

// Whether the plan is one dense dim for every tensor operand (scalars have stride 0).
bool is_flat(const LoopPlan& plan, const int64_t* itemsizes);

// Loops carry every operand's base address as char*. The output's counts a write version; the
// inputs' do not, and the loops never write through them (Note [Write versions]). Undefined
// tensors (scalar operands) give nullptr.
inline char* written_base(const Tensor& t) {
  return t.defined() ? static_cast<char*>(t.mutable_data()) : nullptr;
}
inline char* read_base(const Tensor& t) {
  return t.defined() ? const_cast<char*>(static_cast<const char*>(t.data())) : nullptr;
}

}  // namespace genesis

#pragma once
// Host launchers for the elementwise kernels (plain C++: csrc/cuda/elementwise.cpp includes it).
// Geometry: Note [Kernel geometry] (kernels/geometry.h); operand 0 is the output.
#include <cstdint>

#include "kernels/geometry.h"
#include "vocab/op_codes.h"

namespace genesis::kernels {

// out = op(a, b); a/b are tensors of `dtype` or scalars (sa/sb.is_scalar, then the pointer is
// unused); out has dtype `dtype`, or bool for comparisons.
void launch_binary(ops::BinaryOp op, int dtype, void* out, const void* a, const void* b,
                   const ops::ScalarArg& sa, const ops::ScalarArg& sb, const Geometry& g,
                   void* stream);
void launch_unary(ops::UnaryOp op, int dtype, void* out, const void* a, const Geometry& g,
                  void* stream);
// out = cond ? a : b for items of `itemsize` bytes; a scalar operand is its bit pattern.
void launch_where(int itemsize, void* out, const void* cond, const void* a, const void* b,
                  bool a_scalar, uint64_t a_bits, bool b_scalar, uint64_t b_bits, const Geometry& g,
                  void* stream);

}  // namespace genesis::kernels

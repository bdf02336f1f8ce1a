#pragma once
// The elementwise ops on a CUDA device (and, with the same signatures, csrc/cpu/elementwise.h on
// the CPU). Inputs are already of the compute dtype and broadcast to out's shape (zero strides);
// an undefined input tensor means the matching ScalarArg holds the value. Current stream.
#include <cstdint>

#include "core/tensor.h"
#include "vocab/op_codes.h"

namespace genesis::cuda {

void binary(ops::BinaryOp op, ScalarType dtype, const Tensor& out, const Tensor& a,
            const ops::ScalarArg& sa, const Tensor& b, const ops::ScalarArg& sb);
void unary(ops::UnaryOp op, const Tensor& out, const Tensor& a);
// out = cond ? a : b; a/b undefined: the scalar's bit pattern in out's dtype.
void where(const Tensor& out, const Tensor& cond, const Tensor& a, uint64_t a_bits, const Tensor& b,
           uint64_t b_bits);

}  // namespace genesis::cuda

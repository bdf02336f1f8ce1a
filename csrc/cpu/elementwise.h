#pragma once
// The elementwise ops on the CPU, with the signatures of csrc/cuda/elementwise.h: inputs of the
// compute dtype, broadcast to out's shape; an undefined input is the matching scalar.
#include <cstdint>

#include "core/tensor.h"
#include "vocab/op_codes.h"

namespace genesis::cpu {

void binary(ops::BinaryOp op, ScalarType dtype, const Tensor& out, const Tensor& a,
            const ops::ScalarArg& sa, const Tensor& b, const ops::ScalarArg& sb);
void unary(ops::UnaryOp op, const Tensor& out, const Tensor& a);
void where(const Tensor& out, const Tensor& cond, const Tensor& a, uint64_t a_bits, const Tensor& b,
           uint64_t b_bits);

// The same ops on n contiguous items (a fused group's runs, fusion/cpu_executor.cpp): every
// operand dense, or a number (its pointer null, its ScalarArg set); the same values as the ops
// above give for contiguous tensors. unary_run's `as_strided`: the values unary() gives for a
// strided input, whose loop skips the vector routines (exp, tanh, erf: they may differ from the
// functor in the last bit).
void unary_run(ops::UnaryOp op, ScalarType dtype, void* out, const void* a, int64_t n,
               bool as_strided = false);
void binary_run(ops::BinaryOp op, ScalarType dtype, void* out, const void* a,
                const ops::ScalarArg& sa, const void* b, const ops::ScalarArg& sb, int64_t n);
void where_run(int itemsize, void* out, const bool* cond, const void* a, uint64_t a_bits,
               const void* b, uint64_t b_bits, int64_t n);

// The compute type of a storage type: float for the 16-bit floats.
template <typename T>
struct compute_type {
  using type = T;
};
template <>
struct compute_type<Half> {
  using type = float;
};
template <>
struct compute_type<BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename compute_type<T>::type;

}  // namespace genesis::cpu

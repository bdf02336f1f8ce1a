#pragma once
// The elementwise ops as codes that cross from the C++ front end into the CPU loops and the CUDA
// launchers, plus the one plain struct that carries a Python scalar operand into a kernel.
#include <cstdint>

#include "vocab/elementwise_codes.h"

namespace genesis::ops {

// The codes, in the order of the op table's BINARY_CODES and UNARY_CODES (genesis/_op_table.py,
// which notes each): the range tests below depend on it.
enum class BinaryOp : int {
#define GENESIS_CODE(name) name,
  GENESIS_BINARY_CODES(GENESIS_CODE)
};

enum class UnaryOp : int { GENESIS_UNARY_CODES(GENESIS_CODE) };
#undef GENESIS_CODE

// Ops with a bool result: the comparisons and the logical ops (Eq .. LogicalXor).
inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::LogicalXor; }
// Atan2 .. Polygamma: floating results (Atan2, Copysign promote integers to float32).
inline bool is_float_result(BinaryOp op) {
  return op >= BinaryOp::Atan2 && op <= BinaryOp::Polygamma;
}
inline bool is_bitwise(BinaryOp op) { return op >= BinaryOp::BitAnd && op <= BinaryOp::ShiftRight; }
// From Exp on: floating dtypes only (integers and bool compute in float32); from Frac on,
// integers are refused (PyTorch has no kernel); Floor .. Trunc return an integer input as it is.
inline bool is_floating_only(UnaryOp op) { return op >= UnaryOp::Exp; }
inline bool refuses_integers(UnaryOp op) { return op >= UnaryOp::Frac; }
inline bool is_rounding(UnaryOp op) { return op >= UnaryOp::Floor && op <= UnaryOp::Trunc; }

// A Python number standing in for a tensor operand: the kernel converts it once to its compute
// type (float for 16-bit floats), so `half_tensor + 0.1` adds 0.1f, not 0.1 rounded to half.
struct ScalarArg {
  bool is_scalar = false;
  bool is_float = false;
  double d = 0;
  int64_t i = 0;
};

}  // namespace genesis::ops

#pragma once
// The elementwise ops as codes that cross from the C++ front end into the CPU loops and the CUDA
// launchers, plus the one plain struct that carries a Python scalar operand into a kernel.
#include <cstdint>

namespace genesis::ops {

enum class BinaryOp : int {
  Add,
  Sub,
  Mul,
  Div,       // true division (floating dtypes only)
  TruncDiv,  // rounding_mode='trunc'
  FloorDiv,  // // and rounding_mode='floor'
  Rem,       // % : the sign of the divisor, as Python and PyTorch
  Pow,
  Maximum,
  Minimum,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  BitAnd,
  BitOr,
  BitXor,
};

enum class UnaryOp : int {
  Neg,
  Abs,
  Relu,
  BitNot,
  Exp,  // from here on: floating dtypes only
  Log,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
};

inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::Ge; }
inline bool is_bitwise(BinaryOp op) { return op >= BinaryOp::BitAnd; }
inline bool is_floating_only(UnaryOp op) { return op >= UnaryOp::Exp; }

// A Python number standing in for a tensor operand: the kernel converts it once to its compute
// type (float for 16-bit floats), so `half_tensor + 0.1` adds 0.1f, not 0.1 rounded to half.
struct ScalarArg {
  bool is_scalar = false;
  bool is_float = false;
  double d = 0;
  int64_t i = 0;
};

}  // namespace genesis::ops

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
  Fmod,       // the sign of the dividend (C's fmod); x fmod 0 is 0 for integers, as Rem
  Heaviside,  // same dtypes only, as PyTorch
  Atan2,      // Atan2 .. Polygamma: floating results (Atan2, Copysign promote integers to float32)
  Copysign,
  Hypot,      // floating dtypes only
  Polygamma,  // polygamma(n, x) as (x, n): n a non-negative integer (Note [Polygamma])
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  LogicalAnd,  // LogicalAnd .. LogicalXor: bool results, like the comparisons
  LogicalOr,
  LogicalXor,
  BitAnd,
  BitOr,
  BitXor,
  ShiftLeft,  // shifts by a negative amount or past the width give 0 (or the sign, right)
  ShiftRight,
  ReluBackward,  // internal (relu's backward in one pass): 0 where b <= 0, else a; floats only
};

enum class UnaryOp : int {
  Neg,
  Abs,
  Relu,
  BitNot,
  Floor,  // Floor .. Trunc: an integer input is returned as it is
  Ceil,
  Round,  // half to even, as PyTorch and NumPy
  Trunc,
  Sign,    // bool too: sign(True) is True
  Square,  // a bool input computes in int64 (PyTorch's pow(x, 2))
  Exp,     // from here on: floating dtypes only (integers and bool compute in float32)
  Log,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Reciprocal,
  Log1p,
  Expm1,
  Log2,
  Log10,
  Exp2,
  Erf,
  Erfc,
  Erfinv,
  Lgamma,
  Digamma,
  Sinh,
  Cosh,
  Asin,
  Acos,
  Atan,
  Asinh,
  Acosh,
  Atanh,
  Frac,      // from here on: floating dtypes only, and integers are refused (PyTorch has no kernel)
  Silu,      // the activations with their default parameters (Note [Activations]):
  Gelu,      // gelu(approximate='none')
  GeluTanh,  // gelu(approximate='tanh')
  Mish,
  Softplus,  // softplus(beta=1, threshold=20)
  Elu,       // elu(alpha=1)
};

// Ops with a bool result (the comparisons and the logical ops).
inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::LogicalXor; }
inline bool is_float_result(BinaryOp op) {
  return op >= BinaryOp::Atan2 && op <= BinaryOp::Polygamma;
}
inline bool is_bitwise(BinaryOp op) { return op >= BinaryOp::BitAnd && op <= BinaryOp::ShiftRight; }
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

#pragma once
// Maps an op code to its functor (vocab/math_functors.h) and says which compute types an op is
// instantiated for, so the CPU loops and the CUDA launchers compile only meaningful pairs.
#include <type_traits>

#include "vocab/math_functors.h"
#include "vocab/op_codes.h"

namespace genesis::ops {

// Calls f(Functor{}) for the op.
template <typename F>
decltype(auto) visit_binary(BinaryOp op, F&& f) {
  switch (op) {
    case BinaryOp::Add:
      return f(math::Add{});
    case BinaryOp::Sub:
      return f(math::Sub{});
    case BinaryOp::Mul:
      return f(math::Mul{});
    case BinaryOp::Div:
      return f(math::Div{});
    case BinaryOp::TruncDiv:
      return f(math::TruncDiv{});
    case BinaryOp::FloorDiv:
      return f(math::FloorDiv{});
    case BinaryOp::Rem:
      return f(math::Rem{});
    case BinaryOp::Pow:
      return f(math::Pow{});
    case BinaryOp::Maximum:
      return f(math::Maximum{});
    case BinaryOp::Minimum:
      return f(math::Minimum{});
    case BinaryOp::Fmod:
      return f(math::Fmod{});
    case BinaryOp::Heaviside:
      return f(math::Heaviside{});
    case BinaryOp::Atan2:
      return f(math::Atan2{});
    case BinaryOp::Copysign:
      return f(math::Copysign{});
    case BinaryOp::Hypot:
      return f(math::Hypot{});
    case BinaryOp::Polygamma:
      return f(math::Polygamma{});
    case BinaryOp::Eq:
      return f(math::Eq{});
    case BinaryOp::Ne:
      return f(math::Ne{});
    case BinaryOp::Lt:
      return f(math::Lt{});
    case BinaryOp::Le:
      return f(math::Le{});
    case BinaryOp::Gt:
      return f(math::Gt{});
    case BinaryOp::Ge:
      return f(math::Ge{});
    case BinaryOp::LogicalAnd:
      return f(math::LogicalAnd{});
    case BinaryOp::LogicalOr:
      return f(math::LogicalOr{});
    case BinaryOp::LogicalXor:
      return f(math::LogicalXor{});
    case BinaryOp::BitAnd:
      return f(math::BitAnd{});
    case BinaryOp::BitOr:
      return f(math::BitOr{});
    case BinaryOp::BitXor:
      return f(math::BitXor{});
    case BinaryOp::ShiftLeft:
      return f(math::ShiftLeft{});
    case BinaryOp::ShiftRight:
      return f(math::ShiftRight{});
    case BinaryOp::ReluBackward:
      return f(math::ReluBackward{});
  }
  return f(math::Add{});
}

template <typename F>
decltype(auto) visit_unary(UnaryOp op, F&& f) {
  switch (op) {
    case UnaryOp::Neg:
      return f(math::Neg{});
    case UnaryOp::Abs:
      return f(math::Abs{});
    case UnaryOp::Relu:
      return f(math::Relu{});
    case UnaryOp::BitNot:
      return f(math::BitNot{});
    case UnaryOp::Floor:
      return f(math::Floor{});
    case UnaryOp::Ceil:
      return f(math::Ceil{});
    case UnaryOp::Round:
      return f(math::Round{});
    case UnaryOp::Trunc:
      return f(math::Trunc{});
    case UnaryOp::Sign:
      return f(math::Sign{});
    case UnaryOp::Square:
      return f(math::Square{});
    case UnaryOp::Exp:
      return f(math::Exp{});
    case UnaryOp::Log:
      return f(math::Log{});
    case UnaryOp::Sqrt:
      return f(math::Sqrt{});
    case UnaryOp::Rsqrt:
      return f(math::Rsqrt{});
    case UnaryOp::Sin:
      return f(math::Sin{});
    case UnaryOp::Cos:
      return f(math::Cos{});
    case UnaryOp::Tanh:
      return f(math::Tanh{});
    case UnaryOp::Sigmoid:
      return f(math::Sigmoid{});
    case UnaryOp::Reciprocal:
      return f(math::Reciprocal{});
    case UnaryOp::Log1p:
      return f(math::Log1p{});
    case UnaryOp::Expm1:
      return f(math::Expm1{});
    case UnaryOp::Log2:
      return f(math::Log2{});
    case UnaryOp::Log10:
      return f(math::Log10{});
    case UnaryOp::Exp2:
      return f(math::Exp2{});
    case UnaryOp::Erf:
      return f(math::Erf{});
    case UnaryOp::Erfc:
      return f(math::Erfc{});
    case UnaryOp::Erfinv:
      return f(math::Erfinv{});
    case UnaryOp::Lgamma:
      return f(math::Lgamma{});
    case UnaryOp::Digamma:
      return f(math::Digamma{});
    case UnaryOp::Sinh:
      return f(math::Sinh{});
    case UnaryOp::Cosh:
      return f(math::Cosh{});
    case UnaryOp::Asin:
      return f(math::Asin{});
    case UnaryOp::Acos:
      return f(math::Acos{});
    case UnaryOp::Atan:
      return f(math::Atan{});
    case UnaryOp::Asinh:
      return f(math::Asinh{});
    case UnaryOp::Acosh:
      return f(math::Acosh{});
    case UnaryOp::Atanh:
      return f(math::Atanh{});
    case UnaryOp::Frac:
      return f(math::Frac{});
    case UnaryOp::Silu:
      return f(math::Silu{});
    case UnaryOp::Gelu:
      return f(math::Gelu{});
    case UnaryOp::GeluTanh:
      return f(math::GeluTanh{});
    case UnaryOp::Mish:
      return f(math::Mish{});
    case UnaryOp::Softplus:
      return f(math::Softplus{});
    case UnaryOp::Elu:
      return f(math::Elu{});
  }
  return f(math::Neg{});
}

template <typename Op>
constexpr bool is_compare_functor =
    std::is_same_v<Op, math::Eq> || std::is_same_v<Op, math::Ne> || std::is_same_v<Op, math::Lt> ||
    std::is_same_v<Op, math::Le> || std::is_same_v<Op, math::Gt> || std::is_same_v<Op, math::Ge> ||
    std::is_same_v<Op, math::LogicalAnd> || std::is_same_v<Op, math::LogicalOr> ||
    std::is_same_v<Op, math::LogicalXor>;

// Whether binary functor Op is instantiated for compute type C (the front end never asks for
// the others: it promotes true division to floats and rejects the rest with TypeError).
template <typename Op, typename C>
constexpr bool binary_supports() {
  constexpr bool is_bool = std::is_same_v<C, bool>;
  constexpr bool is_float = std::is_floating_point_v<C>;
  if constexpr (std::is_same_v<Op, math::Div> || std::is_same_v<Op, math::Atan2> ||
                std::is_same_v<Op, math::Copysign> || std::is_same_v<Op, math::Hypot> ||
                std::is_same_v<Op, math::Polygamma> || std::is_same_v<Op, math::ReluBackward>)
    return is_float;
  if constexpr (std::is_same_v<Op, math::BitAnd> || std::is_same_v<Op, math::BitOr> ||
                std::is_same_v<Op, math::BitXor>)
    return !is_float;
  if constexpr (std::is_same_v<Op, math::ShiftLeft> || std::is_same_v<Op, math::ShiftRight>)
    return !is_float && !is_bool;
  if constexpr (std::is_same_v<Op, math::Sub> || std::is_same_v<Op, math::TruncDiv> ||
                std::is_same_v<Op, math::FloorDiv> || std::is_same_v<Op, math::Rem> ||
                std::is_same_v<Op, math::Pow> || std::is_same_v<Op, math::Fmod>)
    return !is_bool;
  return true;
}

template <typename Op, typename C>
constexpr bool unary_supports() {
  constexpr bool is_bool = std::is_same_v<C, bool>;
  constexpr bool is_float = std::is_floating_point_v<C>;
  if constexpr (std::is_same_v<Op, math::Neg> || std::is_same_v<Op, math::Abs> ||
                std::is_same_v<Op, math::Relu> || std::is_same_v<Op, math::Floor> ||
                std::is_same_v<Op, math::Ceil> || std::is_same_v<Op, math::Round> ||
                std::is_same_v<Op, math::Trunc> || std::is_same_v<Op, math::Square>)
    return !is_bool;
  if constexpr (std::is_same_v<Op, math::Sign>) return true;
  if constexpr (std::is_same_v<Op, math::BitNot>) return !is_float;
  return is_float;
}

}  // namespace genesis::ops

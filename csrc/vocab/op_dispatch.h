#pragma once
// Maps an op code to its functor (vocab/math_functors.h) and says which compute types an op is
// instantiated for, so the CPU loops and the CUDA launchers compile only meaningful pairs.
#include <type_traits>

#include "vocab/math_functors.h"
#include "vocab/op_codes.h"

namespace genesis::ops {

// Calls f(math::<Code>{}) for the op: each code's functor has the code's name.
template <typename F>
decltype(auto) visit_binary(BinaryOp op, F&& f) {
  switch (op) {
#define GENESIS_VISIT(name) \
  case BinaryOp::name:      \
    return f(math::name{});
    GENESIS_BINARY_CODES(GENESIS_VISIT)
#undef GENESIS_VISIT
  }
  return f(math::Add{});
}

template <typename F>
decltype(auto) visit_unary(UnaryOp op, F&& f) {
  switch (op) {
#define GENESIS_VISIT(name) \
  case UnaryOp::name:       \
    return f(math::name{});
    GENESIS_UNARY_CODES(GENESIS_VISIT)
#undef GENESIS_VISIT
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
                std::is_same_v<Op, math::Polygamma> || std::is_same_v<Op, math::ReluBackward> ||
                std::is_same_v<Op, math::SiluBackward> || std::is_same_v<Op, math::GeluBackward> ||
                std::is_same_v<Op, math::GeluTanhBackward>)
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

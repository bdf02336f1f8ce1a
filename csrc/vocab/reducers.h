#pragma once
// Note [Reducers]
// Each reduction is a monoid on an accumulator: identity(), load(value, position) for one
// element, and an associative combine(), so the CPU loops and the CUDA kernels may split a
// reduction anywhere and combine the pieces in any order. Arg reducers carry (value, index) and
// break ties by the lower index, so "first occurrence" survives any split; NaN beats every
// number (as PyTorch's max and argmax), and the first NaN wins among NaNs.
#include <cstdint>
#include <limits>

#include "vocab/host_device.h"
#include "vocab/math_functors.h"

namespace genesis::ops {

enum class ReduceOp : int {
  Sum,
  Prod,
  SumSquares,
  SumExp,
  Max,
  Min,
  ArgMax,
  ArgMin,
  All,
  Any,
  MinMax,  // aminmax in one pass (CUDA; the CPU has its own, cpu/min_max.h)
};

template <typename A>
struct SumReducer {
  using Acc = A;
  static GENESIS_HD A identity() { return A(0); }
  template <typename C>
  static GENESIS_HD A load(C v, int64_t) {
    return static_cast<A>(v);
  }
  static GENESIS_HD A combine(A a, A b) { return math::wrap_add(a, b); }
};

// Sum of squares of values the loop has already centred (var/std's second pass).
template <typename A>
struct SumSquaresReducer : SumReducer<A> {
  template <typename C>
  static GENESIS_HD A load(C v, int64_t) {
    A d = static_cast<A>(v);
    return d * d;
  }
};

// Sum of exponentials of values the loop has already shifted by their row's maximum
// (logsumexp's one pass after the max, Note [Fused logsumexp] in ops/reduce_composite.cpp).
template <typename A>
struct SumExpReducer : SumReducer<A> {
  template <typename C>
  static GENESIS_HD A load(C v, int64_t) {
    return static_cast<A>(math::m_exp(v));
  }
};

template <typename A>
struct ProdReducer {
  using Acc = A;
  static GENESIS_HD A identity() { return A(1); }
  template <typename C>
  static GENESIS_HD A load(C v, int64_t) {
    return static_cast<A>(v);
  }
  static GENESIS_HD A combine(A a, A b) { return math::wrap_mul(a, b); }
};

template <typename C>
GENESIS_HD C lowest_value() {
  if constexpr (std::is_floating_point_v<C>)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::lowest();
}
template <typename C>
GENESIS_HD C highest_value() {
  if constexpr (std::is_floating_point_v<C>)
    return std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::max();
}

template <typename C, bool kMax>
struct ExtremeReducer {
  using Acc = C;
  static GENESIS_HD C identity() { return kMax ? lowest_value<C>() : highest_value<C>(); }
  template <typename V>
  static GENESIS_HD C load(V v, int64_t) {
    return static_cast<C>(v);
  }
  static GENESIS_HD C combine(C a, C b) {
    if (math::is_nan(a)) return a;
    if (math::is_nan(b)) return b;
    if constexpr (kMax)
      return a > b ? a : b;
    else
      return a < b ? a : b;
  }
};

// Both extremes at once: one read of the input for aminmax. Each half behaves as its
// ExtremeReducer, NaN included.
template <typename C>
struct LowHigh {
  C lo, hi;
};

template <typename C>
struct MinMaxReducer {
  using Acc = LowHigh<C>;
  static GENESIS_HD Acc identity() { return {highest_value<C>(), lowest_value<C>()}; }
  template <typename V>
  static GENESIS_HD Acc load(V v, int64_t) {
    return {static_cast<C>(v), static_cast<C>(v)};
  }
  static GENESIS_HD Acc combine(Acc a, Acc b) {
    return {ExtremeReducer<C, false>::combine(a.lo, b.lo),
            ExtremeReducer<C, true>::combine(a.hi, b.hi)};
  }
};

template <typename C>
struct ValueIndex {
  C v;
  int64_t i;
};

template <typename C, bool kMax>
struct ArgReducer {
  using Acc = ValueIndex<C>;
  static GENESIS_HD Acc identity() {
    return {kMax ? lowest_value<C>() : highest_value<C>(), std::numeric_limits<int64_t>::max()};
  }
  template <typename V>
  static GENESIS_HD Acc load(V v, int64_t k) {
    return {static_cast<C>(v), k};
  }
  static GENESIS_HD Acc combine(Acc a, Acc b) {
    bool na = math::is_nan(a.v), nb = math::is_nan(b.v);
    if (na || nb) {
      if (na && nb) return a.i <= b.i ? a : b;
      return na ? a : b;
    }
    bool a_better = kMax ? a.v > b.v : a.v < b.v;
    bool b_better = kMax ? b.v > a.v : b.v < a.v;
    if (a_better) return a;
    if (b_better) return b;
    return a.i <= b.i ? a : b;
  }
};

template <bool kAll>
struct LogicalReducer {
  using Acc = bool;
  static GENESIS_HD bool identity() { return kAll; }
  template <typename V>
  static GENESIS_HD bool load(V v, int64_t) {
    return static_cast<bool>(v);
  }
  static GENESIS_HD bool combine(bool a, bool b) { return kAll ? (a && b) : (a || b); }
};

// What the loops need besides the input: the [outer, reduce, inner] view of a contiguous input
// and how to finish each result.
struct ReduceShape {
  int64_t outer = 1, reduce = 1, inner = 1;
  int64_t outputs() const { return outer * inner; }
};
struct ReduceFinish {
  bool divide = false;  // result = acc / divisor (mean, var)
  double divisor = 1;
  bool sqrt = false;  // std
};

}  // namespace genesis::ops

#pragma once
// Note [Accumulating scatters]
// A scatter either assigns (x[key] = v: with duplicate indices one of the values is kept) or
// accumulates: every value combines into its destination with one of four wrapping, NaN-
// propagating functors of vocab/math_functors.h (sum, product, maximum, minimum), computed on
// the compute type (float for the 16-bit floats, rounded back after each combine) so the CPU
// loops and the CUDA kernels agree. scatter_add, scatter(reduce=), scatter_reduce, index_add,
// index_reduce and put_(accumulate=True) are all this scatter (ops/index_reduce.cpp); "mean" is
// a sum and a count. On the CPU the values combine in row-major order of the index (one
// thread, deterministic; Note [Prefetched gathers and scatters] in cpu/index.cpp); on CUDA with
// atomics, so the order of float sums, and hence their last bits, may differ between runs, as
// PyTorch documents for its CUDA scatter_add.
#include <cstdint>

#include "vocab/host_device.h"
#include "vocab/math_functors.h"

namespace genesis::ops {

enum class ScatterReduce : int8_t { None, Sum, Prod, Max, Min };

// combine(a, b) of an accumulating mode, on compute values.
template <ScatterReduce R, typename C>
GENESIS_HD C scatter_combine(C a, C b) {
  if constexpr (R == ScatterReduce::Sum)
    return math::Add{}(a, b);
  else if constexpr (R == ScatterReduce::Prod)
    return math::Mul{}(a, b);
  else if constexpr (R == ScatterReduce::Max)
    return math::Maximum{}(a, b);
  else
    return math::Minimum{}(a, b);
}

// Calls f(std::integral_constant<ScatterReduce, R>{}) for an accumulating mode.
template <typename F>
void visit_scatter_reduce(ScatterReduce r, F&& f) {
  switch (r) {
    case ScatterReduce::Sum:
      return f(std::integral_constant<ScatterReduce, ScatterReduce::Sum>{});
    case ScatterReduce::Prod:
      return f(std::integral_constant<ScatterReduce, ScatterReduce::Prod>{});
    case ScatterReduce::Max:
      return f(std::integral_constant<ScatterReduce, ScatterReduce::Max>{});
    case ScatterReduce::Min:
      return f(std::integral_constant<ScatterReduce, ScatterReduce::Min>{});
    case ScatterReduce::None:
      return;
  }
}

}  // namespace genesis::ops

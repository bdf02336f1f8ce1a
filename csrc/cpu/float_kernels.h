#pragma once
// Pieces the CPU's fused nn kernels share (cpu/normalization.cpp, cross_entropy.cpp,
// batch_norm.cpp, max_pool.cpp, softmax.cpp): the four floating dtypes with their compute types
// (float16 and bfloat16 computed in float, float32 and float64 in themselves), items widened to
// the compute type, and sums and maxima in independent lanes that the compiler vectorizes.
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "core/half.h"
#include "core/scalar_type.h"

namespace genesis::cpu {

// f(T{}, C{}) for dtype's storage type T and compute type C; raises "[op] ..." for a dtype
// that is not floating.
template <typename F>
void dispatch_floating(ScalarType dtype, const char* op, const F& f) {
  switch (dtype) {
    case ScalarType::Float32:
      return f(float{}, float{});
    case ScalarType::Float64:
      return f(double{}, double{});
    case ScalarType::Float16:
      return f(Half{}, float{});
    case ScalarType::BFloat16:
      return f(BFloat16{}, float{});
    default:
      GENESIS_CHECK(false, op, "expected a floating point input, got ", scalar_type_name(dtype));
  }
}

// One item in the compute type C.
template <typename C, typename T>
C widen(T v) {
  if constexpr (std::is_same_v<T, C>)
    return v;
  else
    return static_cast<C>(static_cast<float>(v));
}

// Note [Kernel pieces inline into their callers]: the pieces below are forced inline, so that
// a caller compiled for AVX2 or AVX-512 (Note [Norm rows per instruction set]) runs them in
// its own instruction set (the row bodies themselves use the same macro). GCC's flatten left them
// as calls to one baseline copy (4 floats an instruction): layer norm's row sums ran in SSE inside
// the AVX-512 rows.
#if defined(__GNUC__) || defined(__clang__)
#define GENESIS_PIECE_INLINE [[gnu::always_inline]] inline
#else
#define GENESIS_PIECE_INLINE inline
#endif

// n items in the compute type: the items themselves, or widened into `scratch`.
template <typename T, typename C>
GENESIS_PIECE_INLINE const C* widened(const T* items, int64_t n, std::vector<C>& scratch) {
  if constexpr (std::is_same_v<T, C>) {
    return items;
  } else {
    scratch.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) scratch[i] = widen<C>(items[i]);
    return scratch.data();
  }
}

// The sum of f(i) for i < n in Lanes partial sums, folded at the end.
template <int Lanes, typename C, typename F>
GENESIS_PIECE_INLINE C lane_sum(int64_t n, const F& f) {
  C acc[Lanes] = {};
  int64_t i = 0;
  for (; i + Lanes <= n; i += Lanes)
    for (int k = 0; k < Lanes; ++k) acc[k] += f(i + k);
  for (; i < n; ++i) acc[0] += f(i);
  C total = 0;
  for (int k = 0; k < Lanes; ++k) total += acc[k];
  return total;
}

// The largest of n items, NaN when one is NaN (so a row's loss or softmax is NaN, as the
// composite gives). 16 lanes' maxima and a NaN flag, which the compiler turns into vector max and
// compare instructions (the one-item loop with its NaN test ran a third of the forward's time).
template <typename C>
GENESIS_PIECE_INLINE C row_max(const C* x, int64_t n) {
  constexpr int kLanes = 16;
  C lane[kLanes];
  bool nan = false;
  for (int k = 0; k < kLanes; ++k) lane[k] = -std::numeric_limits<C>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      C v = x[i + k];
      nan |= v != v;
      lane[k] = v > lane[k] ? v : lane[k];
    }
  C m = -std::numeric_limits<C>::infinity();
  for (; i < n; ++i) {
    nan |= x[i] != x[i];
    m = x[i] > m ? x[i] : m;
  }
  // the lanes folded as a tree (a chain of 16 dependent maxima cost a short row more than its
  // loop); max is exact, so the order changes nothing
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) lane[k] = lane[k + w] > lane[k] ? lane[k + w] : lane[k];
  m = lane[0] > m ? lane[0] : m;
  return nan ? std::numeric_limits<C>::quiet_NaN() : m;
}

}  // namespace genesis::cpu

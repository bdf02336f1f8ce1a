#pragma once
// Note [Scans]
// A scan (cumsum, cumprod, logcumsumexp, cummax, cummin) runs along one dim, each line of that
// dim on its own. Every scan is an associative combine(earlier, later) on an accumulator, so the
// CPU walks each line once in order and CUDA hands the same combine to CUB's scan, which may
// group the items any way it likes; both devices then agree up to float rounding.
// - Accumulators: float for the 16-bit floats (stored back rounded once per item, as PyTorch),
//   the type itself for float32 and float64, int64 for every integer (and bool) input, so an
//   integer scan wraps as two's complement.
// - cummax/cummin carry (value, index): the later item takes over when it is NaN or not worse
//   (>= for max, <= for min), so ties keep the last occurrence and, once a NaN is seen, the
//   running extreme stays NaN with the index of the latest NaN; PyTorch's CPU does the same.
// - logcumsumexp combines as max + log1p(exp(min - max)), which never overflows; two equal
//   infinities (or a NaN) give the earlier value itself, avoiding inf - inf.
#include <cstdint>

#include "vocab/host_device.h"
#include "vocab/math_functors.h"

namespace genesis::ops {

enum class ScanOp : int { Sum, Prod, LogSumExp };

template <typename A>
struct SumScan {
  static GENESIS_HD A combine(A a, A b) { return math::wrap_add(a, b); }
};

template <typename A>
struct ProdScan {
  static GENESIS_HD A combine(A a, A b) { return math::wrap_mul(a, b); }
};

template <typename A>
struct LogAddExpScan {
  static GENESIS_HD A combine(A a, A b) {
    bool nan = b != b;
    A lo = nan ? b : (b < a ? b : a);
    A hi = nan ? b : (a < b ? b : a);
    if (lo != hi || (lo - lo == A(0)))  // unequal, or equal and finite
      return hi + math::m_log1p(math::m_exp(lo - hi));
    return a;
  }
};

// Whether `next` (later along the line) replaces the running extreme `current`.
template <bool kMax, typename A>
GENESIS_HD bool takes_over(A current, A next) {
  if (math::is_nan(next)) return true;
  if (math::is_nan(current)) return false;
  return kMax ? !(next < current) : !(current < next);
}

}  // namespace genesis::ops

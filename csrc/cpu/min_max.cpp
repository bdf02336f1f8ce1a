// Note [Min and max in one pass]: aminmax as two reductions reads its input twice, and on a
// contiguous input memory bandwidth is the whole cost (genesis took 23.8 ms for 2^24 float32
// against PyTorch's 11.7 ms). This pass keeps kLanes running minima and maxima over independent
// lanes: SSE2's min/max for floats (min_ps(v, lo) is exactly `v < lo ? v : lo`), the compiler's
// vectorized compares for integers. That form skips a NaN, so floats also sum v * 0 per lane,
// which turns NaN only after a NaN or an infinity, and then one more look finds out which. A
// full reduction is cut into pieces over the threads and the pieces' results combined; rows are
// spread over the threads whole. benchmarks/results/2026-11-29-session13.txt has the numbers.
#include "cpu/min_max.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

constexpr int kLanes = 16;

template <typename T>
struct Extremes {
  T lo, hi;
  bool nan = false;

  void add(const Extremes& o) {
    lo = o.lo < lo ? o.lo : lo;
    hi = o.hi > hi ? o.hi : hi;
    nan = nan || o.nan;
  }
};

// Whether p[0, n) holds a NaN: the rare second look when the lanes' poison (below) says NaN.
template <typename T>
bool has_nan(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (std::isnan(p[i])) return true;
  return false;
}

#if defined(__SSE2__)
// SSE2 (every x86-64): min_ps(v, lo) is `v < lo ? v : lo` exactly; 4 registers of lanes.
struct FloatLanes {
  using Reg = __m128;
  static constexpr int kWidth = 4;
  static Reg zero() { return _mm_setzero_ps(); }
  static Reg load(const float* p) { return _mm_loadu_ps(p); }
  static Reg min(Reg a, Reg b) { return _mm_min_ps(a, b); }
  static Reg max(Reg a, Reg b) { return _mm_max_ps(a, b); }
  static Reg poison(Reg acc, Reg v) { return _mm_add_ps(acc, _mm_mul_ps(v, _mm_setzero_ps())); }
  static void store(float* p, Reg r) { _mm_storeu_ps(p, r); }
};
struct DoubleLanes {
  using Reg = __m128d;
  static constexpr int kWidth = 2;
  static Reg zero() { return _mm_setzero_pd(); }
  static Reg load(const double* p) { return _mm_loadu_pd(p); }
  static Reg min(Reg a, Reg b) { return _mm_min_pd(a, b); }
  static Reg max(Reg a, Reg b) { return _mm_max_pd(a, b); }
  static Reg poison(Reg acc, Reg v) { return _mm_add_pd(acc, _mm_mul_pd(v, _mm_setzero_pd())); }
  static void store(double* p, Reg r) { _mm_storeu_pd(p, r); }
};
template <typename T>
using Lanes = std::conditional_t<std::is_same_v<T, float>, FloatLanes, DoubleLanes>;
#endif

// Runs kLanes lanes over p[0, n) (n >= kLanes) from the first kLanes items; returns how many
// items it took and leaves each lane's minimum, maximum and poison in lo, hi, poison.
template <typename T>
int64_t run_lanes(const T* p, int64_t n, T* lo, T* hi, T* poison) {
  int64_t i = kLanes;
#if defined(__SSE2__)
  if constexpr (std::is_floating_point_v<T>) {
    using L = Lanes<T>;
    constexpr int kRegs = kLanes / L::kWidth;
    typename L::Reg l[kRegs], h[kRegs], z[kRegs];
    for (int r = 0; r < kRegs; ++r) {
      l[r] = h[r] = L::load(p + r * L::kWidth);
      z[r] = L::poison(L::zero(), l[r]);
    }
    for (; i + kLanes <= n; i += kLanes)
      for (int r = 0; r < kRegs; ++r) {
        typename L::Reg v = L::load(p + i + r * L::kWidth);
        l[r] = L::min(v, l[r]);
        h[r] = L::max(v, h[r]);
        z[r] = L::poison(z[r], v);
      }
    for (int r = 0; r < kRegs; ++r) {
      L::store(lo + r * L::kWidth, l[r]);
      L::store(hi + r * L::kWidth, h[r]);
      L::store(poison + r * L::kWidth, z[r]);
    }
    return i;
  }
#endif
  for (int l = 0; l < kLanes; ++l) lo[l] = hi[l] = p[l], poison[l] = p[l] * T(0);
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      T v = p[i + l];
      lo[l] = v < lo[l] ? v : lo[l];
      hi[l] = v > hi[l] ? v : hi[l];
      if constexpr (std::is_floating_point_v<T>) poison[l] += v * T(0);
    }
  }
  return i;
}

template <typename T>
Extremes<T> extremes(const T* p, int64_t n) {
  Extremes<T> r{p[0], p[0], false};
  int64_t i = 0;
  if (n >= kLanes) {
    // poison = sum of v * 0: 0 while every item is finite, NaN once a NaN or an infinity
    // passed (an infinity times 0 is NaN too, so a NaN poison asks has_nan).
    T lo[kLanes], hi[kLanes], poison[kLanes];
    i = run_lanes(p, n, lo, hi, poison);
    bool poisoned = false;
    for (int l = 0; l < kLanes; ++l) {
      r.add({lo[l], hi[l], false});
      if constexpr (std::is_floating_point_v<T>) poisoned = poisoned || poison[l] != poison[l];
    }
    if (poisoned) r.nan = has_nan(p, i);
  }
  for (; i < n; ++i) {
    T v = p[i];
    r.lo = v < r.lo ? v : r.lo;
    r.hi = v > r.hi ? v : r.hi;
    if constexpr (std::is_floating_point_v<T>) r.nan = r.nan || v != v;
  }
  return r;
}

template <typename T>
void store(const Extremes<T>& e, T* lo, T* hi) {
  if constexpr (std::is_floating_point_v<T>) {
    if (e.nan) {
      *lo = *hi = std::numeric_limits<T>::quiet_NaN();
      return;
    }
  }
  *lo = e.lo;
  *hi = e.hi;
}

template <typename T>
void run(const T* in, int64_t rows, int64_t len, T* mins, T* maxs) {
  if (rows == 1) {  // one long row: pieces over the threads, then their results combined
    int64_t pieces =
        std::min<int64_t>(max_threads() * 4, (len + kDefaultGrain - 1) / kDefaultGrain);
    std::vector<Extremes<T>> part(static_cast<size_t>(pieces));
    parallel_for(pieces, 1, [&](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) {
        int64_t begin = len * b / pieces, end = len * (b + 1) / pieces;
        part[static_cast<size_t>(b)] = extremes(in + begin, end - begin);
      }
    });
    Extremes<T> all = part[0];
    for (int64_t b = 1; b < pieces; ++b) all.add(part[static_cast<size_t>(b)]);
    store(all, mins, maxs);
    return;
  }
  parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / len), [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) store(extremes(in + r * len, len), mins + r, maxs + r);
  });
}

}  // namespace

bool min_max_rows(const Tensor& in, int64_t rows, int64_t len, const Tensor& mins,
                  const Tensor& maxs) {
  bool done = false;
  GENESIS_DISPATCH_ALL_TYPES(in.dtype(), "aminmax", [&] {
    if constexpr (std::is_arithmetic_v<scalar_t> && !std::is_same_v<scalar_t, bool>) {
      run(in.data_as<scalar_t>(), rows, len, mins.mutable_data_as<scalar_t>(),
          maxs.mutable_data_as<scalar_t>());
      done = true;
    }
  });
  return done;
}

}  // namespace genesis::cpu

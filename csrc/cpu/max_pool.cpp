#include "cpu/max_pool.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cpu/float_kernels.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

// The window's first tap, then each later one taken when greater or NaN: the first max in
// window order wins, a NaN over any number (the last NaN). The choice is made with bit masks:
// which tap holds a window's max is data, and GCC turned every select written with ?: into a
// branch, mispredicted about half the time: a 2x2 pool of 32x64x32x32 float32 on 2 cores took
// 3.5-3.9 ms with branches, 1.87 ms with masks (torch 4.6 ms).
template <typename T, typename C>
inline void pick(const T* plane, int64_t at_tap, C& best, int64_t& at) {
  using Bits = std::conditional_t<sizeof(C) == 8, uint64_t, uint32_t>;
  const C v = static_cast<C>(plane[at_tap]);
  const Bits take = Bits(0) - Bits((v > best) | (v != v));
  best = std::bit_cast<C>((std::bit_cast<Bits>(v) & take) | (std::bit_cast<Bits>(best) & ~take));
  const uint64_t take_at = uint64_t(0) - uint64_t(take & 1);
  at = static_cast<int64_t>((uint64_t(at_tap) & take_at) | (uint64_t(at) & ~take_at));
}

// A row of outputs (o0, o1, all o2) at a time: the window rows valid for the row are found once,
// and items compare in float (double for double), exact for every floating dtype (each fits).
// Outputs whose windows lie inside the input along the row (all but a few at the edges) run
// without bounds checks.
template <typename T>
void max_pool_typed(const Tensor& x, const PoolGeometry& g, const Tensor& values,
                    const Tensor& indices) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const T* xs = x.data_as<T>();
  T* vs = values.mutable_data_as<T>();
  int64_t* is = indices.mutable_data_as<int64_t>();
  const int64_t outs = g.out[0] * g.out[1] * g.out[2];
  const int64_t plane_items = g.in[0] * g.in[1] * g.in[2];
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
  // o2 in [inner_lo, inner_hi): every tap's i2 = o2 * stride - pad + k2 * dilation is in range
  const int64_t reach = (g.kernel[2] - 1) * g.dilation[2];
  const int64_t inner_lo = std::min(g.out[2], (g.pad[2] + g.stride[2] - 1) / g.stride[2]);
  const int64_t inner_hi =
      std::max(inner_lo, std::min(g.out[2], g.in[2] - 1 - reach + g.pad[2] >= 0
                                                ? (g.in[2] - 1 - reach + g.pad[2]) / g.stride[2] + 1
                                                : 0));
  auto planes = [&](int64_t p0, int64_t p1) {
    std::vector<int64_t> lines;  // the window rows' offsets valid for an output row
    lines.reserve(static_cast<size_t>(g.kernel[0] * g.kernel[1]));
    for (int64_t p = p0; p < p1; ++p) {
      const T* plane = xs + p * plane_items;
      T* v_out = vs + p * outs;
      int64_t* i_out = is + p * outs;
      for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.out[1]; ++o1, v_out += g.out[2], i_out += g.out[2]) {
          lines.clear();
          for (int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
            const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
            if (i0 < 0 || i0 >= g.in[0]) continue;
            for (int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
              const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
              if (i1 >= 0 && i1 < g.in[1]) lines.push_back((i0 * g.in[1] + i1) * g.in[2]);
            }
          }
          auto edge = [&](int64_t o2) {
            C best = -std::numeric_limits<C>::infinity();
            int64_t at = -1;
            const int64_t first2 = o2 * g.stride[2] - g.pad[2];
            for (int64_t line : lines)
              for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
                const int64_t i2 = first2 + k2 * g.dilation[2];
                if (i2 < 0 || i2 >= g.in[2]) continue;
                if (at < 0) {
                  best = static_cast<C>(plane[line + i2]);
                  at = line + i2;
                } else {
                  pick(plane, line + i2, best, at);
                }
              }
            v_out[o2] =
                at < 0 ? static_cast<T>(-std::numeric_limits<float>::infinity()) : plane[at];
            i_out[o2] = at < 0 ? 0 : at;
          };
          const bool inner = !lines.empty();
          for (int64_t o2 = 0; o2 < (inner ? inner_lo : g.out[2]); ++o2) edge(o2);
          if (!inner) continue;
          for (int64_t o2 = inner_lo; o2 < inner_hi; ++o2) {
            const int64_t first = lines[0] + o2 * g.stride[2] - g.pad[2];
            C best = static_cast<C>(plane[first]);
            int64_t at = first;
            for (int64_t k2 = 1; k2 < g.kernel[2]; ++k2)
              pick(plane, first + k2 * g.dilation[2], best, at);
            for (size_t l = 1; l < lines.size(); ++l) {
              const int64_t start = lines[l] + o2 * g.stride[2] - g.pad[2];
              for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2)
                pick(plane, start + k2 * g.dilation[2], best, at);
            }
            v_out[o2] = plane[at];
            i_out[o2] = at;
          }
          for (int64_t o2 = inner_hi; o2 < g.out[2]; ++o2) edge(o2);
        }
    }
  };
  parallel_for(g.planes, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, outs * taps)),
               planes);
}

}  // namespace

void max_pool(const Tensor& x, const PoolGeometry& g, const Tensor& values, const Tensor& indices) {
  dispatch_floating(x.dtype(), "max_pool",
                    [&](auto t, auto) { max_pool_typed<decltype(t)>(x, g, values, indices); });
}

}  // namespace genesis::cpu

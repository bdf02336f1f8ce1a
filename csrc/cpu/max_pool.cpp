#include "cpu/max_pool.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/errors.h"
#include "cpu/float_kernels.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

// A row of outputs (o0, o1, all o2) at a time: the window rows valid for the row are found once,
// and items compare in float (double for double), exact for every floating dtype (each fits).
// The first max in window order wins, a NaN over any number (the last NaN), as before.
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
  auto planes = [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* plane = xs + p * plane_items;
      T* v_out = vs + p * outs;
      int64_t* i_out = is + p * outs;
      for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.out[1]; ++o1, v_out += g.out[2], i_out += g.out[2])
          for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
            C best = -std::numeric_limits<C>::infinity();
            int64_t at = -1;
            const int64_t first2 = o2 * g.stride[2] - g.pad[2];
            for (int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
              const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
              if (i0 < 0 || i0 >= g.in[0]) continue;
              for (int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
                const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
                if (i1 < 0 || i1 >= g.in[1]) continue;
                const int64_t line = (i0 * g.in[1] + i1) * g.in[2];
                for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
                  const int64_t i2 = first2 + k2 * g.dilation[2];
                  if (i2 < 0 || i2 >= g.in[2]) continue;
                  const C v = static_cast<C>(plane[line + i2]);
                  if (at < 0 || v > best || v != v) {
                    best = v;
                    at = line + i2;
                  }
                }
              }
            }
            v_out[o2] =
                at < 0 ? static_cast<T>(-std::numeric_limits<float>::infinity()) : plane[at];
            i_out[o2] = at < 0 ? 0 : at;
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

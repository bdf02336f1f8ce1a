#include "cpu/max_pool.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/errors.h"
#include "cpu/float_kernels.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

template <typename T>
void max_pool_typed(const Tensor& x, const PoolGeometry& g, const Tensor& values,
                    const Tensor& indices) {
  const T* xs = x.data_as<T>();
  T* vs = values.mutable_data_as<T>();
  int64_t* is = indices.mutable_data_as<int64_t>();
  int64_t outs = g.out[0] * g.out[1] * g.out[2];
  int64_t plane_items = g.in[0] * g.in[1] * g.in[2];
  int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
  parallel_for(g.planes, std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, outs * taps)),
               [&](int64_t p0, int64_t p1) {
                 for (int64_t p = p0; p < p1; ++p) {
                   const T* plane = xs + p * plane_items;
                   for (int64_t o = 0; o < outs; ++o) {
                     int64_t o2 = o % g.out[2], o1 = (o / g.out[2]) % g.out[1],
                             o0 = o / (g.out[2] * g.out[1]);
                     double best = -std::numeric_limits<double>::infinity();
                     int64_t at = -1;
                     for (int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
                       int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
                       if (i0 < 0 || i0 >= g.in[0]) continue;
                       for (int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
                         int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
                         if (i1 < 0 || i1 >= g.in[1]) continue;
                         for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
                           int64_t i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
                           if (i2 < 0 || i2 >= g.in[2]) continue;
                           int64_t flat = (i0 * g.in[1] + i1) * g.in[2] + i2;
                           double v = static_cast<double>(static_cast<float>(plane[flat]));
                           if constexpr (std::is_same_v<T, double>) v = plane[flat];
                           if (at < 0 || v > best || std::isnan(v)) {  // the last NaN wins
                             best = v;
                             at = flat;
                           }
                         }
                       }
                     }
                     int64_t out_at = p * outs + o;
                     vs[out_at] = at < 0 ? static_cast<T>(-std::numeric_limits<float>::infinity())
                                         : plane[at];
                     is[out_at] = at < 0 ? 0 : at;
                   }
                 }
               });
}

}  // namespace

void max_pool(const Tensor& x, const PoolGeometry& g, const Tensor& values, const Tensor& indices) {
  dispatch_floating(x.dtype(), "max_pool",
                    [&](auto t, auto) { max_pool_typed<decltype(t)>(x, g, values, indices); });
}

}  // namespace genesis::cpu

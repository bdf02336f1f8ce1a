#include "cpu/grad_scaling.h"

#include <atomic>
#include <cmath>

#include "cpu/float_kernels.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

void non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                   const Tensor& inv_scale) {
  const float inv = *inv_scale.data_as<float>();
  bool found = false;
  for (const Tensor& grad : grads) {
    dispatch_floating(grad.dtype(), "_amp_foreach_non_finite_check_and_unscale_",
                      [&](auto t, auto c) {
                        using T = decltype(t);
                        using C = decltype(c);
                        T* g = grad.mutable_data_as<T>();
                        const C scale = static_cast<C>(inv);
                        std::atomic<bool> any{false};
                        parallel_for(grad.numel(), kDefaultGrain, [&](int64_t begin, int64_t end) {
                          bool local = false;
                          for (int64_t i = begin; i < end; ++i) {
                            C v = static_cast<C>(g[i]);
                            local |= !std::isfinite(v);
                            g[i] = static_cast<T>(v * scale);
                          }
                          if (local) any.store(true, std::memory_order_relaxed);
                        });
                        found = found || any.load();
                      });
  }
  if (found) *found_inf.mutable_data_as<float>() = 1.0f;
}

void update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                   double growth_factor, double backoff_factor, int growth_interval) {
  float* s = scale.mutable_data_as<float>();
  int32_t* tracker = growth_tracker.mutable_data_as<int32_t>();
  if (*found_inf.data_as<float>() != 0.0f) {
    *s = static_cast<float>(*s * backoff_factor);
    *tracker = 0;
    return;
  }
  int32_t successful = *tracker + 1;
  if (successful == growth_interval) {
    // In double, rounded once, as PyTorch.
    auto grown = static_cast<float>(*s * growth_factor);
    if (std::isfinite(grown)) *s = grown;
    *tracker = 0;
  } else {
    *tracker = successful;
  }
}

}  // namespace genesis::cpu

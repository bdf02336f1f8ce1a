#pragma once
// Runs an inner kernel over a LoopPlan on the CPU, in parallel chunks of the flat index. The
// kernel sees N base pointers, the innermost byte strides and a count, so contiguous operands
// reach it as one long run that the compiler vectorizes.
#include <array>
#include <cstdint>
#include <vector>

#include "core/loop_plan.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

template <int N, typename Inner>
void for_each_run(const LoopPlan& plan, const std::array<char*, N>& bases, const Inner& inner,
                  int64_t grain = kDefaultGrain) {
  if (plan.numel == 0) return;
  const int64_t ndim = plan.ndim();
  std::array<int64_t, N> inner_strides;
  for (int k = 0; k < N; ++k) inner_strides[k] = plan.byte_strides[k][0];

  parallel_for(plan.numel, grain, [&](int64_t begin, int64_t end) {
    // Unravel `begin` into a counter over the plan's dims (innermost first).
    std::vector<int64_t> counter(static_cast<size_t>(ndim), 0);
    std::array<char*, N> ptrs = bases;
    int64_t rest = begin;
    for (int64_t d = 0; d < ndim; ++d) {
      counter[d] = rest % plan.sizes[d];
      rest /= plan.sizes[d];
      for (int k = 0; k < N; ++k) ptrs[k] += counter[d] * plan.byte_strides[k][d];
    }
    int64_t pos = begin;
    while (pos < end) {
      int64_t n = std::min(plan.sizes[0] - counter[0], end - pos);
      inner(ptrs, inner_strides, n);
      pos += n;
      // Advance the counter by n along dim 0, carrying into outer dims.
      for (int k = 0; k < N; ++k) ptrs[k] += n * inner_strides[k];
      counter[0] += n;
      for (int64_t d = 0; d + 1 < ndim && counter[d] == plan.sizes[d]; ++d) {
        counter[d] = 0;
        ++counter[d + 1];
        for (int k = 0; k < N; ++k)
          ptrs[k] += plan.byte_strides[k][d + 1] - plan.sizes[d] * plan.byte_strides[k][d];
      }
    }
  });
}

}  // namespace genesis::cpu

#include "cpu/counting.h"

#include <mutex>
#include <vector>

#include "core/errors.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

// Note [Counting in parallel]: each thread counts its share of the items into a private
// histogram, added into the result under a lock at the end, when the histogram is small next
// to the items (bincount of 2^24 items into 2^16 bins); otherwise one thread counts straight
// into the result, since private histograms would cost more to clear and add than the count.
template <typename T>
void count(const T* items, int64_t n, int64_t* counts, int64_t bins) {
  if (bins * 8 > n) {
    for (int64_t i = 0; i < n; ++i) ++counts[items[i]];
    return;
  }
  std::mutex merge;
  parallel_for(n, std::max<int64_t>(kDefaultGrain, bins * 8), [&](int64_t b, int64_t e) {
    std::vector<int64_t> local(static_cast<size_t>(bins), 0);
    for (int64_t i = b; i < e; ++i) ++local[static_cast<size_t>(items[i])];
    std::lock_guard<std::mutex> lock(merge);
    for (int64_t j = 0; j < bins; ++j) counts[j] += local[static_cast<size_t>(j)];
  });
}

}  // namespace

void count_values(const Tensor& values, const Tensor& counts) {
  GENESIS_CHECK(values.is_contiguous() && counts.is_contiguous() && values.ndim() == 1 &&
                    counts.ndim() == 1 && counts.dtype() == ScalarType::Int64 &&
                    (values.dtype() == ScalarType::Int64 || values.dtype() == ScalarType::Int32),
                "bincount", "expected contiguous int32/int64 values and int64 counts");
  int64_t* out = counts.mutable_data_as<int64_t>();
  if (values.dtype() == ScalarType::Int64)
    count(values.data_as<int64_t>(), values.numel(), out, counts.numel());
  else
    count(values.data_as<int32_t>(), values.numel(), out, counts.numel());
}

}  // namespace genesis::cpu

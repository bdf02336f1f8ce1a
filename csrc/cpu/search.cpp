#include "cpu/search.h"

#include <algorithm>
#include <cstring>

#include "core/errors.h"
#include "cpu/parallel.h"
#include "cpu/sort_keys.h"

namespace genesis::cpu {

namespace {

template <typename U, typename Out>
void search_typed(const U* sorted, const U* values, Out* out, int64_t rows_sorted, int64_t n,
                  int64_t total, int64_t m, KeyFormat<U> format, bool right) {
  int64_t grain = std::max<int64_t>(1, kDefaultGrain / (2 + log2_ceil(n)));
  bool is_float = format.kind == vocab::KeyKind::Float;
  constexpr U kNanKey = static_cast<U>(~U(0));
  parallel_for(total, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const U* row = sorted + (rows_sorted == 1 ? 0 : (i / m) * n);
      U key = key_of(values[i], format);
      bool value_nan = is_float && key == kNanKey;
      int64_t lo = 0, hi = n;  // the answer lies in [lo, hi]
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        U k = key_of(row[mid], format);
        // PyTorch's comparisons (Note [Searching past NaN]): a NaN on either side moves right.
        if (value_nan || (is_float && k == kNanKey) || (right ? k <= key : k < key))
          lo = mid + 1;
        else
          hi = mid;
      }
      out[i] = static_cast<Out>(lo);
    }
  });
}

}  // namespace

void search_sorted(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right) {
  GENESIS_CHECK(sorted.is_contiguous() && values.is_contiguous() && out.is_contiguous() &&
                    sorted.dtype() == values.dtype() && out.numel() == values.numel(),
                "searchsorted", "expected contiguous operands of one dtype");
  int64_t total = values.numel();
  if (total == 0) return;
  int64_t n = sorted.ndim() == 0 ? 1 : sorted.sizes().back();
  int64_t rows_sorted = n == 0 ? 1 : sorted.numel() / n;
  int64_t m = rows_sorted == 1 ? total : total / rows_sorted;
  with_key_format(values.dtype(), "searchsorted", [&](auto format) {
    using U = decltype(format.inf_bits);
    const U* s = static_cast<const U*>(sorted.data());
    const U* v = static_cast<const U*>(values.data());
    if (out.dtype() == ScalarType::Int32)
      search_typed(s, v, out.mutable_data_as<int32_t>(), rows_sorted, n, total, m, format, right);
    else
      search_typed(s, v, out.mutable_data_as<int64_t>(), rows_sorted, n, total, m, format, right);
  });
}

}  // namespace genesis::cpu

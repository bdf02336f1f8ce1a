#pragma once
// CPU binary search behind searchsorted and bucketize (ops/search.cpp).
#include "core/tensor.h"

namespace genesis::cpu {

// Note [Searching past NaN]: the search answers as PyTorch's binary search does with IEEE
// comparisons: a step moves right unless the sequence item is >= the value (> for `right`), so
// a NaN value lands after every item and a NaN met in the sequence is passed over. In a
// sequence sorted by genesis or PyTorch the NaNs are at the end, where this is the same as
// counting them smaller than every value.

// For each row b of `values` ([B, M] contiguous), the insertion points of its items in row b of
// `sorted` ([B, N] contiguous, each row ascending in the order of Note [Sort keys]; B may be 1 for
// every row of values): the first position whose item is not less than the value (greater than,
// when `right`). `out` is int64 or int32, [B * M] contiguous; both inputs share one dtype.
void search_sorted(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right);

}  // namespace genesis::cpu

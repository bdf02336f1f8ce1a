#pragma once
// searchsorted and bucketize: binary searches of values in sorted rows (cpu/search.h,
// cuda/search.h), in the order of Note [Sort keys].
#include <optional>

#include "core/tensor.h"

namespace genesis::ops {

// Insertion points of `values` in `sorted` (1-d, or rows matching values' leading dims):
// the first position whose item is not less than the value (greater than when `right`).
// `sorter` (int64, sorted's shape) sorts an unsorted sequence. int32 results when out_int32.
Tensor searchsorted(const Tensor& sorted, const Tensor& values, bool out_int32, bool right,
                    const std::optional<Tensor>& sorter);
// The bucket of each input item among 1-d `boundaries` (searchsorted(boundaries, input)).
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right);

}  // namespace genesis::ops

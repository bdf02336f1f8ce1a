#pragma once
// Counting ops composed from the accumulating scatter of ops/index_reduce.h: bincount (how
// often each small non-negative integer occurs, optionally weighted) and histc (a histogram of
// equal-width bins, each item's bin computed elementwise, Note [histc bins]).
#include <optional>

#include "core/tensor.h"

namespace genesis::ops {

// Counts of 0 .. max(max(input) + 1, minlength) - 1 in the 1-d non-negative integer `input`;
// with `weights` (1-d, input's length) the sums of the weights instead. int64 counts; float32
// weights give float32 sums and other weights float64, as PyTorch. Waits once for the device
// (the result's length depends on the data).
Tensor bincount(const Tensor& input, const std::optional<Tensor>& weights, int64_t minlength);
// A histogram of `bins` equal-width bins over [min, max] (the data's range when min == max),
// of the floating point input's dtype; items outside the range and NaNs are not counted.
Tensor histc(const Tensor& input, int64_t bins, double min, double max);

}  // namespace genesis::ops

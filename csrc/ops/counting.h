#pragma once
// Counting ops composed from the accumulating scatter of ops/index_reduce.h: bincount (how
// often each small non-negative integer occurs, optionally weighted) and histc (a histogram of
// equal-width bins, each item's bin computed elementwise, Note [histc bins]).
#include <optional>
#include <utility>

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
// PyTorch's histogram: (counts, edges) for `bins` equal bins (linspace edges) over `range` (the
// data's range, widened by 0.5 each side when it is one value, without it) or for the 1-d
// increasing edges `edges`; an item goes to bin k when edge[k] <= item < edge[k + 1], the last bin
// also taking the last edge. float32 and float64 only; `weight` (the input's shape and dtype) sums
// weights; `density` divides by the total and the bin widths.
std::pair<Tensor, Tensor> histogram(const Tensor& input, int64_t bins,
                                    std::optional<std::pair<double, double>> range,
                                    const std::optional<Tensor>& weight, bool density);
std::pair<Tensor, Tensor> histogram(const Tensor& input, const Tensor& edges,
                                    const std::optional<Tensor>& weight, bool density);

}  // namespace genesis::ops

#pragma once
// Sorting and selection: sort, argsort, topk, kthvalue, median/nanmedian, mode, quantile, unique
// and unique_consecutive. Every one sorts rows with the backends' stable row sort (cpu/sort.h,
// cuda/sort.h, in the order of Note [Sort keys]) and composes the rest from tensor ops.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/tensor.h"

namespace genesis::ops {

// (values, indices) sorted along dim; equal items keep their input order (stable sort is always
// used, so `stable` changes nothing). NaNs sort after +inf.
std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending);
Tensor argsort(const Tensor& t, int64_t dim, bool descending);
// The k largest (smallest) items along dim, in sorted order.
std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest);
// The k-th smallest item along dim (k counts from 1).
std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim);
// The lower median along dim; a row holding NaN gives NaN (its first NaN) unless ignore_nan, which
// takes the median of the other items (nanmedian).
std::pair<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan);
Tensor median_all(const Tensor& t, bool ignore_nan);  // over every element, a 0-d value
// The most frequent value along dim (the smallest on a tie) and its last position.
std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim);
// Quantiles q (a 0-d or 1-d floating tensor in [0, 1]) along dim (all elements when absent);
// interpolation: linear, lower, higher, midpoint, nearest.
Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation, bool ignore_nan, const char* op);
// quantile's checks (dtypes, q's shape, device and range, the mode, a non-empty reduced dim);
// returns the reduced dim, wrapped (0 when dim is absent: all elements).
int64_t check_quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim,
                       const std::string& interpolation, const char* op);

struct UniqueResult {
  Tensor values, inverse, counts;
};
// Unique values (sorted), or unique slices along dim; inverse maps each input item (slice) to
// its entry; counts how many input items each entry stands for. NaNs are never equal, as in
// PyTorch, so each NaN is its own entry.
// Which of inverse and counts to compute (flat unique only; with a dim both always are).
struct UniqueParts {
  bool inverse = true;
  bool counts = true;
};
UniqueResult unique(const Tensor& t, std::optional<int64_t> dim, UniqueParts parts = {});
// Like unique, but only runs of equal neighbours collapse; nothing is sorted.
UniqueResult unique_consecutive(const Tensor& t, std::optional<int64_t> dim,
                                UniqueParts parts = {});

}  // namespace genesis::ops

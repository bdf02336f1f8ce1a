#pragma once
// Reductions composed from the core ones (ops/reduce.h) and elementwise ops: logsumexp, the
// NaN-ignoring sums, counts, norms, and diff. Each is a few whole-tensor passes in C++; none
// loops over elements.
#include <optional>
#include <string>
#include <utility>

#include "ops/reduce.h"

namespace genesis::ops {

// log(sum(exp(x))) over dims, computed as m + log(sum(exp(x - m))) with m the max (an infinite
// m is not subtracted). Integer inputs give the default float dtype.
Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim);
// sum / mean treating NaN as absent (sum: as 0; mean: not counted). Integers: sum / an error.
Tensor nansum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor nanmean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
// The number of non-zero elements over dims (int64).
Tensor count_nonzero(const Tensor& t, const Dims& dims);
// The vector p-norm over dims (all of them when absent): sum(|x|^p)^(1/p); p = inf/-inf: the
// max/min of |x|; p = 0: the count of non-zeros. Floating inputs only; dtype converts first.
Tensor vector_norm(const Tensor& t, double ord, const Dims& dims, bool keepdim,
                   std::optional<ScalarType> dtype);
// Matrix norms over two dims: "fro", or ord 1, -1, inf, -inf (max/min column or row abs sums).
Tensor matrix_norm(const Tensor& t, const std::string& ord, const Shape& dims, bool keepdim);
// The n-th forward difference along dim, after joining prepend and append along it.
Tensor diff(const Tensor& t, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append);

}  // namespace genesis::ops

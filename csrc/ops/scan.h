#pragma once
// The scans along one dim (Note [Scans] in vocab/scan_functors.h): cumsum, cumprod,
// logcumsumexp, cummax, cummin, and the in-place cumsum_/cumprod_. `dim` may be negative; a 0-d
// tensor takes dim 0 or -1. Results are new contiguous tensors of the input's shape.
#include <cstdint>
#include <optional>
#include <utility>

#include "core/tensor.h"

namespace genesis::ops {

// Integer and bool inputs give int64 unless `dtype` is given; `dtype` converts the input first.
Tensor cumsum(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype);
Tensor cumprod(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype);
// Floating point inputs only.
Tensor logcumsumexp(const Tensor& t, int64_t dim);
// (values, int64 indices): the running max (min) and the index along dim where it was found.
std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& t, int64_t dim);
// In place, keeping self's dtype; `dtype`, when given, must be self's.
void cumsum_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);
void cumprod_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);

}  // namespace genesis::ops

#pragma once
// aminmax's CPU pass (Note [Min and max in one pass] in cpu/min_max.cpp).
#include <cstdint>

#include "core/tensor.h"

namespace genesis::cpu {

// The smallest and largest item of each of the `rows` rows of `len` (> 0) items of the
// contiguous CPU tensor `in`, into the contiguous `mins` and `maxs` (the input's dtype, `rows`
// items each); a row with a NaN gives NaN for both. Returns false, writing nothing, for the
// dtypes it leaves to two reductions (bool and the 16-bit floats).
bool min_max_rows(const Tensor& in, int64_t rows, int64_t len, const Tensor& mins,
                  const Tensor& maxs);

}  // namespace genesis::cpu

#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "vocab/philox.h"

namespace genesis::cpu {

// Fills a contiguous CPU tensor: element i takes Philox counter offset + i (offset + i / 4 for
// randn into float32 and 16-bit floats) under key seed and becomes a value of `kind`
// (vocab/philox.h). low and range matter for kInteger only.
void random_fill(const Tensor& out, philox::Kind kind, uint64_t seed, uint64_t offset, int64_t low,
                 uint64_t range);

// Poisson counts (vocab/poisson.h) of the float64 `rates` into the float64 `out`, both
// contiguous and of one shape: element i owns the counters (offset + i, j) (Note [Poisson
// streams]). The rates are finite and non-negative (ops/distributions.cpp checks).
void poisson_fill(const Tensor& out, const Tensor& rates, uint64_t seed, uint64_t offset);

}  // namespace genesis::cpu

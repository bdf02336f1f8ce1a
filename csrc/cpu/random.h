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

}  // namespace genesis::cpu

#pragma once
// Random tensors from Philox generators (Note [Generators] in ops/generator.h): each call takes
// the next numel counters of its generator (the default one when `gen` is null), so a seed gives
// the same numbers on the CPU and on any GPU.
#include <cstdint>

#include "core/tensor.h"
#include "ops/generator.h"

namespace genesis::ops {

// The default generator's seed.
void manual_seed(uint64_t seed);  // also rewinds the offset to 0
uint64_t initial_seed();
uint64_t seed();  // seeds from std::random_device and returns the seed

// Uniform in [0, 1) and standard normal; floating dtypes only (TypeError otherwise).
Tensor rand(const Shape& sizes, ScalarType dtype, Device device, const char* op = "rand",
            Generator* gen = nullptr);
Tensor randn(const Shape& sizes, ScalarType dtype, Device device, const char* op = "randn",
             Generator* gen = nullptr);
// Uniform integers in [low, high); any dtype but bool, whose range must hold low and high - 1.
Tensor randint(int64_t low, int64_t high, const Shape& sizes, ScalarType dtype, Device device,
               const char* op = "randint", Generator* gen = nullptr);

}  // namespace genesis::ops

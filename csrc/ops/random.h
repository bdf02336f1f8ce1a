#pragma once
// Random tensors from one global Philox generator shared by all devices: its state is
// (seed, offset), and each call takes the next numel counters, so a seed gives the same
// numbers on the CPU and on any GPU.
#include <cstdint>

#include "core/tensor.h"

namespace genesis::ops {

void manual_seed(uint64_t seed);  // also rewinds the offset to 0
uint64_t initial_seed();
uint64_t seed();  // seeds from std::random_device and returns the seed

// Uniform in [0, 1) and standard normal; floating dtypes only (TypeError otherwise).
Tensor rand(const Shape& sizes, ScalarType dtype, Device device, const char* op = "rand");
Tensor randn(const Shape& sizes, ScalarType dtype, Device device, const char* op = "randn");
// Uniform integers in [low, high); any dtype but bool, whose range must hold low and high - 1.
Tensor randint(int64_t low, int64_t high, const Shape& sizes, ScalarType dtype, Device device,
               const char* op = "randint");

}  // namespace genesis::ops

#pragma once
// The CPU's max pool over contiguous planes (the contract of kernels/max_pool.cuh): values in
// x's dtype, indices int64, both (planes, *out).
#include "core/tensor.h"
#include "vocab/pool_geometry.h"

namespace genesis::cpu {

void max_pool(const Tensor& x, const PoolGeometry& g, const Tensor& values, const Tensor& indices);

}  // namespace genesis::cpu

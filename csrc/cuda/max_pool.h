#pragma once
// Max pooling over CUDA planes, contiguous or channels-last (g.channels_last; kernels/
// max_pool.cu), with the tensor contract of cpu/max_pool.h otherwise. Current stream.
#include "core/tensor.h"
#include "vocab/pool_geometry.h"

namespace genesis::cuda {

void max_pool(const Tensor& x, const PoolGeometry& g, const Tensor& values, const Tensor& indices);

}  // namespace genesis::cuda

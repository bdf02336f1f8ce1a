#pragma once
// Host launcher for max pooling over planes (device code in max_pool.cu).
#include <cstdint>

#include "vocab/pool_geometry.h"

namespace genesis::kernels {

// values[p, o] = the largest item of window o of plane p (taps outside the plane skipped; a NaN
// wins, the last in tap order, as in PyTorch), indices[p, o] = its flat index in the plane (int64).
// x and values of dtype code `dtype`; x, values and indices contiguous, or all channels-last
// with g.channels_last (PoolGeometry).
void launch_max_pool(int dtype, const void* x, const PoolGeometry& g, void* values, void* indices,
                     void* stream);

}  // namespace genesis::kernels

#pragma once
// Host launchers for the copy kernels: strided copies with a dtype cast fused in, and a tiled
// transpose for permuted layouts. Dtypes are genesis ScalarType codes (core/scalar_type.h).
#include <cstdint>

#include "kernels/geometry.h"

namespace genesis::kernels {

// dst[i] = cast(src[i]) for numel elements laid out by `g` (operand 0 dst, operand 1 src; Note
// [Kernel geometry]); on `stream` (a cudaStream_t).
void launch_copy(void* dst, int dst_dtype, const void* src, int src_dtype, int64_t numel,
                 const Geometry& g, void* stream);

}  // namespace genesis::kernels

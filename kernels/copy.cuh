#pragma once
// Host launchers for the copy kernels: strided copies with a dtype cast fused in, and a tiled
// transpose for permuted layouts. Dtypes are genesis ScalarType codes (core/scalar_type.h).
#include <cstdint>

namespace genesis::kernels {

constexpr int kMaxCopyDims = 8;

// A LoopPlan's geometry (innermost dim first), byte strides per operand.
struct CopyGeometry {
  int ndim = 0;
  int64_t sizes[kMaxCopyDims] = {};
  int64_t dst_strides[kMaxCopyDims] = {};
  int64_t src_strides[kMaxCopyDims] = {};
};

// dst[i] = cast(src[i]) for numel elements laid out by `g`; on `stream` (a cudaStream_t).
void launch_copy(void* dst, int dst_dtype, const void* src, int src_dtype, int64_t numel,
                 const CopyGeometry& g, void* stream);

}  // namespace genesis::kernels

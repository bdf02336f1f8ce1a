#pragma once
// Host launchers of dropout's two passes (Note [Fused dropout] in ops/dropout.cpp; device code
// in dropout.cu).
#include <cstdint>

namespace genesis::kernels {

// x and out (dtype code `dtype`, a floating one) and mask, n contiguous items each: element
// 4j + e kept iff word e of Philox(offset + j, seed) as a uniform float is below `keep`; out =
// x * scale (rounded to the dtype) where kept, x * 0 elsewhere. A non-null `state` (a graph's
// draw) gives the key and the counters' start on the device, as launch_random's.
void launch_fused_dropout(const void* x, void* out, bool* mask, int dtype, int64_t n, float keep,
                          double scale, uint64_t seed, uint64_t offset, const uint64_t* state,
                          void* stream);

// out = grad * scale where mask, grad * 0 elsewhere; n contiguous items.
void launch_dropout_masked_scale(const void* grad, const bool* mask, void* out, int dtype,
                                 int64_t n, double scale, void* stream);

}  // namespace genesis::kernels

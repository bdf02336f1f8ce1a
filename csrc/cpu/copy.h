#pragma once
#include "core/tensor.h"

namespace genesis::cpu {

// dst[i] = cast(src[i]) for CPU tensors of the same shape (src strides already broadcast).
void copy(const Tensor& dst, const Tensor& src);

// out[i] = cast(in[i]) for n contiguous items (a fused group's casts, fusion/cpu_executor.cpp):
// the values copy() gives.
void cast_run(ScalarType to, ScalarType from, void* out, const void* in, int64_t n);

// Every element of dst set to the item whose bytes are the low bytes of `pattern`.
void fill(const Tensor& dst, uint64_t pattern);

}  // namespace genesis::cpu

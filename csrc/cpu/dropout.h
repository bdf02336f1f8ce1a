#pragma once
// The CPU loops of dropout (Note [Fused dropout] in ops/dropout.cpp).
#include <cstdint>

#include "core/tensor.h"

namespace genesis::cpu {

// x, out (x's dtype) and mask (bool) contiguous CPU tensors of one shape: mask and out of
// dropout with keep probability `keep`, group j of four elements drawing Philox counter
// offset + j under key seed.
void fused_dropout(const Tensor& x, const Tensor& out, const Tensor& mask, float keep, double scale,
                   uint64_t seed, uint64_t offset);

// mask[k] = whether item first + k of a dropout is kept (fused_dropout's draws), k < n: a fused
// group's chunk (fusion/cpu_executor.cpp).
void dropout_mask_run(bool* mask, int64_t first, int64_t n, float keep, uint64_t seed,
                      uint64_t offset);

// out = grad * scale where mask, grad * 0 elsewhere; contiguous CPU tensors of one shape.
void dropout_masked_scale(const Tensor& grad, const Tensor& mask, const Tensor& out, double scale);

}  // namespace genesis::cpu

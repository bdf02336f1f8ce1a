#pragma once
// Dropout in one pass (Note [Fused dropout] in ops/dropout.cpp).
#include <utility>

#include "core/tensor.h"
#include "ops/generator.h"

namespace genesis::ops {

// (out, mask): mask a bool tensor of x's shape, each element kept with probability 1 - p,
// 0 < p < 1, drawn from `gen` (the default generator when null); out = x * scale where kept,
// x * 0 elsewhere, scale = 1 / (1 - p) rounded to x's dtype. x floating, any layout; both
// results contiguous.
std::pair<Tensor, Tensor> fused_dropout(const Tensor& x, double p, const char* op,
                                        Generator* gen = nullptr);

// grad * scale where mask, grad * 0 elsewhere (dropout's backward), scale rounded to grad's
// dtype as fused_dropout rounds it: mask a bool tensor of grad's shape and device.
Tensor dropout_masked_scale(const Tensor& grad, const Tensor& mask, double scale, const char* op);

}  // namespace genesis::ops

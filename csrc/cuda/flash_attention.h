#pragma once
// The fused attention kernels (Note [Fused attention] in kernels/flash_attention_forward.cu) on
// checked CUDA tensors (ops/attention.h checks and allocates). Current stream.
#include "core/tensor.h"
#include "cuda/graph_random.h"

namespace genesis::cuda {

// The operands of both passes: q (B, H, L, E), k and v (B, H / kv_group, S, E), float16,
// bfloat16 or float32, last dim contiguous; mask undefined or 4-D (B or 1, H or 1, L or 1, S or 1)
// of bool, float32 or q's dtype. dropout_p > 0 drops weights (Note [Dropout in fused attention] in
// vocab/attention_dropout.h): the forward draws with `draw` and writes what it drew with into `rng`
// (two uint64 items, on the device: int64 tensor of 2), which the backward reads.
struct FlashAttentionOperands {
  Tensor q, k, v, mask;
  double scale = 1.0;
  bool causal = false;
  double dropout_p = 0.0;
  PhiloxArgs draw;
  Tensor rng;
};

// Whether the device of a CUDA tensor runs the kernels (sm_80 and later, built for it).
bool flash_attention_supported(int device);

// out (B, H, L, E) contiguous and lse (B, H, L) float32, both allocated by the caller.
void flash_attention_forward(const FlashAttentionOperands& o, const Tensor& out, const Tensor& lse);

// dout strided as q; delta (B, H, L) float32 scratch; dq_accum (B, H, L, E) float32, zeroed by
// the caller, ends holding dq; dk and dv (B, H, S, E) contiguous, one per query head.
void flash_attention_backward(const FlashAttentionOperands& o, const Tensor& out,
                              const Tensor& dout, const Tensor& lse, const Tensor& delta,
                              const Tensor& dq_accum, const Tensor& dk, const Tensor& dv);

}  // namespace genesis::cuda

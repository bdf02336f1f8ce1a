#pragma once
// Scaled-dot-product attention through cuDNN's fused attention engines (Note [Attention through
// cuDNN] in cudnn_attention.cpp). Compiled in when the build found cudnn.h and the header-only
// cuDNN frontend; answers false (the caller keeps genesis's own kernels) when the build lacks
// them, cuDNN cannot be loaded, or cuDNN has no engine for the problem.
#include "core/tensor.h"

namespace genesis::cuda {

// Whether this build carries the cuDNN attention path at all.
bool cudnn_attention_built();

// q (B, H, L, E), k and v (B, Hk, S, E) with H a multiple of Hk, float16 or bfloat16, last dim
// contiguous; out (B, H, L, E) with a contiguous last dim (any other strides: Note [Attention
// results in the operands' layout] in ops/attention.cpp) and lse (B, H, L) float32 contiguous,
// allocated by the caller. dropout_p > 0 drops weights with cuDNN's Philox draws keyed by rng,
// two int64 items {seed, offset} on the device (Note [Dropout through cuDNN]). Returns false,
// having written nothing, when cuDNN does not take the problem.
bool cudnn_attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                             bool causal, double dropout_p, const Tensor& rng, const Tensor& out,
                             const Tensor& lse, const char* op);

// dq (B, H, L, E), dk and dv (B, Hk, S, E) with a contiguous last dim, allocated by the caller,
// from dout (strided as q) and the forward's out, lse and (dropout) rng. Returns false as the
// forward does.
bool cudnn_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                              const Tensor& dout, const Tensor& lse, double scale, bool causal,
                              double dropout_p, const Tensor& rng, const Tensor& dq,
                              const Tensor& dk, const Tensor& dv, const char* op);

}  // namespace genesis::cuda

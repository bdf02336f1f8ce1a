#pragma once
// Fused scaled-dot-product attention on CUDA (Note [Fused attention] in
// kernels/flash_attention_forward.cu): genesis.nn.functional.scaled_dot_product_attention calls
// these for the inputs they take (genesis/nn/functional/_attention_fused.py) and keeps its
// composed path for the rest.
#include <tuple>

#include "core/tensor.h"

namespace genesis::ops {

// Whether the fused kernels run on the device of CUDA tensor `like`.
bool fused_attention_supported(const Tensor& like);

// (out, lse): q (B, H, L, E), k and v (B, Hk, S, E) with H a multiple of Hk (grouped-query
// attention), float16 or bfloat16, 1 <= E <= 256; mask undefined or 4-D, each dim 1 or the
// matching size of (B, H, L, S), bool (true keeps) or float32 / q's dtype (added to the scores);
// causal: query i sees keys j <= i. out (B, H, L, E) in q's dtype, lse (B, H, L) float32.
std::tuple<Tensor, Tensor> fused_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                           const Tensor& mask, double scale, bool causal,
                                           const char* op);

// (dq, dk, dv) from the output's gradient dout and the forward's out and lse; dk and dv are
// (B, H, S, E), one per query head: the caller sums each group of H / Hk.
std::tuple<Tensor, Tensor, Tensor> fused_attention_backward(const Tensor& dout, const Tensor& q,
                                                            const Tensor& k, const Tensor& v,
                                                            const Tensor& out, const Tensor& lse,
                                                            const Tensor& mask, double scale,
                                                            bool causal, const char* op);

}  // namespace genesis::ops

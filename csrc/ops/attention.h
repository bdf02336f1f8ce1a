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

// Which fused kernels may run (genesis.backends.cuda's cudnn and flash switches), and which did.
enum class AttentionPath : int { kNone = 0, kGenesis = 1, kCudnn = 2 };

// What fused_attention returns: out (B, H, L, E) in q's dtype, lse (B, H, L) float32, rng (two
// int64 items, the Philox seed and offset of the dropout's draws; undefined without dropout),
// and the path that ran (kNone: none did, the tensors are undefined).
struct FusedAttention {
  Tensor out, lse, rng;
  AttentionPath path = AttentionPath::kNone;
};

// q (B, H, L, E), k and v (B, Hk, S, E) with H a multiple of Hk (grouped-query attention),
// float16, bfloat16 or float32, 1 <= E <= 256; mask undefined or 4-D, each dim 1 or the
// matching size of (B, H, L, S), bool (true keeps) or float32 / q's dtype (added to the scores);
// causal: query i sees keys j <= i; 0 <= dropout_p < 1 drops weights, drawn from the default
// generator (genesis's kernels: Note [Dropout in fused attention] in vocab/attention_dropout.h;
// cuDNN: Note [Dropout through cuDNN]). cuDNN runs it when `cudnn` allows, the dtype is 16-bit,
// this build and machine have cuDNN's attention, there is no mask and cuDNN takes the problem
// (Note [Attention through cuDNN]); else genesis's kernels when `own` allows; else path kNone
// (the caller's composed path; the generator has advanced all the same under dropout).
FusedAttention fused_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                               const Tensor& mask, double scale, bool causal, double dropout_p,
                               bool cudnn, bool own, const char* op);

// (dq, dk, dv) from the output's gradient dout and the forward's out, lse and rng (dropout_p > 0);
// dk and dv are (B, Hk, S, E), summed over each group of H / Hk query heads. Through cuDNN when
// `cudnn` (the forward's path) and cuDNN takes it, else genesis's kernels (the two lse agree);
// with dropout a cuDNN forward's backward runs on cuDNN or raises.
std::tuple<Tensor, Tensor, Tensor> fused_attention_backward(
    const Tensor& dout, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
    const Tensor& lse, const Tensor& mask, double scale, bool causal, double dropout_p,
    const Tensor& rng, bool cudnn, const char* op);

// The keep mask (bh, L, S) bool on the CPU that fused_attention's dropout with keep probability
// 1 - dropout_p drew from (seed, offset) (its rng): for tests.
Tensor attention_dropout_mask(int64_t bh, int64_t L, int64_t S, double dropout_p, uint64_t seed,
                              uint64_t offset);

}  // namespace genesis::ops

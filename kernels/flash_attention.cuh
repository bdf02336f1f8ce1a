#pragma once
// Host launchers of the fused attention kernels (device code and Note [Fused attention] in
// flash_attention_forward.cu, the gradients in flash_attention_backward.cu).
#include <cstdint>

namespace genesis::kernels {

// The operands both passes read. q (batch, heads, L, E), k and v (batch, heads / kv_group, S, E)
// of one dtype (kFloat16, kBFloat16, or kFloat32), the last dim contiguous, the other three strided
// (q_stride = {batch, head, row} in items). mask: null, or items of dtype mask_dtype (kBool:
// true keeps a score; kFloat32 / kFloat16 / kBFloat16: added to it) at
// b * mask_stride[0] + h * mask_stride[1] + i * mask_stride[2] + j * mask_stride[3] (0 strides
// broadcast). causal: query i sees keys j <= i. E <= 256.
struct FlashAttentionArgs {
  int dtype;
  int64_t batch, heads, kv_group, L, S;
  int E;
  const void *q, *k, *v;
  int64_t q_stride[3], k_stride[3], v_stride[3];
  const void* mask;
  int mask_dtype;
  int64_t mask_stride[4];
  float scale;
  bool causal;
  // Dropout of the weights (Note [Dropout in fused attention] in vocab/attention_dropout.h):
  // none when keep is 1. The forward draws with (seed, offset), or with a captured graph's
  // state = {seed, base offset} and offset added to the base, and writes what it drew with into
  // rng[0], rng[1]; the backward reads rng.
  float keep = 1.0f, keep_scale = 1.0f;  // 1 - p and float(1 / (1 - p))
  uint64_t seed = 0, offset = 0;
  const uint64_t* state = nullptr;
  uint64_t* rng = nullptr;
};

// out (batch, heads, L, E) contiguous = softmax(q k^T * scale + mask) v; lse (batch, heads, L)
// float: each row's log-sum-exp of its scores, -inf where every key is masked (its output row
// is zero).
void launch_flash_attention_forward(const FlashAttentionArgs& a, void* out, float* lse,
                                    void* stream);

// What the backward pass adds: the forward's out and lse, the output's gradient dout (strided
// as q), and the scratch it fills: delta (batch, heads, L) float, dq_accum (batch, heads, L, E)
// float zeroed by the caller (it ends holding dq). dk and dv: (batch, heads, S, E) contiguous,
// one per query head (a caller with kv_group > 1 sums each group).
struct FlashAttentionGrads {
  const void* out;
  const void* dout;
  int64_t dout_stride[3];
  const float* lse;
  float* delta;
  float* dq_accum;
  void *dk, *dv;
};

void launch_flash_attention_backward(const FlashAttentionArgs& a, const FlashAttentionGrads& g,
                                     void* stream);

// The float32 kernels (flash_attention_float.cu, Note [Fused attention in float32]), which the
// two launchers above call for dtype kFloat32: out, dk and dv float, the rest as above.
void launch_flash_attention_forward_float(const FlashAttentionArgs& a, void* out, float* lse,
                                          void* stream);
void launch_flash_attention_backward_float(const FlashAttentionArgs& a,
                                           const FlashAttentionGrads& g, void* stream);

// Whether `device` can run the kernels (tensor cores of sm_80 and later).
bool flash_attention_device_supported(int device);

}  // namespace genesis::kernels

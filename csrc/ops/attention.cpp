#include "ops/attention.h"

#include <algorithm>
#include <climits>

#include "core/errors.h"
#include "cuda/cudnn_attention.h"
#include "cuda/flash_attention.h"
#include "cuda/random.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/generator.h"
#include "ops/reduce.h"
#include "ops/sibling_views.h"
#include "ops/views.h"
#include "vocab/attention_dropout.h"

namespace genesis::ops {

namespace {

void check_operand(const Tensor& t, const Tensor& q, const char* what, const char* op) {
  GENESIS_CHECK(t.is_cuda() && t.device() == q.device(), op, "the fused attention takes ", what,
                " on ", q.device().str(), ", got ", t.device().str());
  GENESIS_CHECK(t.ndim() == 4, op, "the fused attention takes 4-D (batch, heads, seq, dim) ", what,
                ", got ", shape_str(t.sizes()));
  GENESIS_CHECK_TYPE(t.dtype() == q.dtype(), op, what, " is ", scalar_type_name(t.dtype()),
                     " but query is ", scalar_type_name(q.dtype()));
}

// t with a contiguous last dim (itself when it has one).
Tensor rows_contiguous(const Tensor& t) { return t.strides()[3] == 1 ? t : contiguous(t); }

// Note [Attention results in the operands' layout]
// A model that makes its heads by view(b, s, h, e).transpose(1, 2) hands attention (B, H, L, E)
// operands laid out (B, L, H, E), and undoes it on the result: y.transpose(1, 2).contiguous()
// .view(b, s, h * e). cuDNN's graphs take any strides, so its result (and in backward the
// gradients of q, k and v) are written in the layout of their operand, as PyTorch's fused
// kernels do: the model's contiguous() is then free, and so are the views that take the
// gradients back to (b, s, h * e), where (B, H, L, E) results cost a copy each (four a GPT-2
// layer, 0.4 ms of its training step on an H200). genesis's own kernels keep writing contiguous
// (B, H, L, E) results.
// An uninitialized tensor of t's sizes laid out (B, L, H, E) when t's sequence dim is outside
// its head dim in memory (t.strides()[2] > t.strides()[1]), else contiguous.
Tensor like_operand(const Tensor& t, const Shape& sizes) {
  if (t.strides()[2] <= t.strides()[1] || sizes[1] == 1 || sizes[2] == 1)
    return Tensor::empty(sizes, t.dtype(), t.device());
  Tensor heads_last =
      Tensor::empty({sizes[0], sizes[2], sizes[1], sizes[3]}, t.dtype(), t.device());
  return transpose(heads_last, 1, 2);
}

cuda::FlashAttentionOperands operands(const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Tensor& mask, double scale, bool causal,
                                      const char* op) {
  GENESIS_CHECK(q.is_cuda(), op, "the fused attention takes CUDA tensors, got query on ",
                q.device().str());
  GENESIS_CHECK_TYPE(q.dtype() == ScalarType::Float16 || q.dtype() == ScalarType::BFloat16 ||
                         q.dtype() == ScalarType::Float32,
                     op, "the fused attention takes float16, bfloat16 or float32, got ",
                     scalar_type_name(q.dtype()));
  check_operand(q, q, "query", op);
  check_operand(k, q, "key", op);
  check_operand(v, q, "value", op);
  const Shape& qs = q.sizes();
  const Shape& ks = k.sizes();
  GENESIS_CHECK(
      ks == v.sizes() && ks[0] == qs[0] && ks[3] == qs[3] && ks[1] > 0 && qs[1] % ks[1] == 0, op,
      "query ", shape_str(qs), ", key ", shape_str(ks), " and value ", shape_str(v.sizes()),
      " do not fit: one batch and head dim, key and value of one shape, and query heads "
      "a multiple of key heads");
  GENESIS_CHECK(qs[3] >= 1 && qs[3] <= 256, op,
                "the fused attention takes head dims from 1 to 256, got ", qs[3]);
  const int64_t bh = qs[0] * qs[1];
  const int64_t blocks = std::max((qs[2] + 63) / 64, 2 * ((ks[2] + 63) / 64));
  GENESIS_CHECK(bh == 0 || blocks <= INT_MAX / bh, op, "too many rows for one launch: query ",
                shape_str(qs), ", key ", shape_str(ks));
  if (mask.defined()) {
    GENESIS_CHECK(mask.is_cuda() && mask.device() == q.device(), op, "attn_mask is on ",
                  mask.device().str(), " but query on ", q.device().str());
    GENESIS_CHECK_TYPE(mask.dtype() == ScalarType::Bool || mask.dtype() == ScalarType::Float32 ||
                           mask.dtype() == q.dtype(),
                       op, "attn_mask must be bool, float32 or the query's dtype, got ",
                       scalar_type_name(mask.dtype()));
    const Shape want{qs[0], qs[1], qs[2], ks[2]};
    bool fits = mask.ndim() == 4;
    for (int i = 0; fits && i < 4; ++i) fits = mask.sizes()[i] == 1 || mask.sizes()[i] == want[i];
    GENESIS_CHECK(fits, op, "attn_mask ", shape_str(mask.sizes()), " does not broadcast to ",
                  shape_str(want));
  }
  return {rows_contiguous(q), rows_contiguous(k), rows_contiguous(v), mask, scale, causal};
}

}  // namespace

bool fused_attention_supported(const Tensor& like) {
  return like.is_cuda() && cuda::flash_attention_supported(like.device().index);
}

FusedAttention fused_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                               const Tensor& mask, double scale, bool causal, double dropout_p,
                               bool cudnn, bool own, const char* op) {
  GENESIS_CHECK_VALUE(dropout_p >= 0 && dropout_p < 1, op,
                      "the fused attention takes 0 <= dropout_p < 1, got ", dropout_p);
  cuda::FlashAttentionOperands o = operands(q, k, v, mask, scale, causal, op);
  const Shape& qs = q.sizes();
  FusedAttention r;
  r.lse = Tensor::empty({qs[0], qs[1], qs[2]}, ScalarType::Float32, q.device());
  // cuDNN's graphs here are 16-bit; float32 runs genesis's kernels (Note [Fused attention in
  // float32] in kernels/flash_attention_float.cu)
  if (q.dtype() == ScalarType::Float32) cudnn = false;
  if (dropout_p > 0) {  // one draw, for whichever path runs
    o.dropout_p = dropout_p;
    o.rng = r.rng = Tensor::empty({2}, ScalarType::Int64, q.device());
    o.draw = cuda_counters(generator_or_default(nullptr), q.device().index,
                           attention_dropout::counters(qs[0] * qs[1], qs[2], k.sizes()[2]));
  }
  if (cudnn && !mask.defined()) {
    r.out = like_operand(o.q, qs);  // Note [Attention results in the operands' layout]
    // cuDNN reads the draw from rng (Note [Dropout through cuDNN]); genesis's kernels write it
    if (dropout_p > 0) cuda::write_philox_args(r.rng, o.draw);
    if (cuda::cudnn_attention_forward(o.q, o.k, o.v, scale, causal, dropout_p, r.rng, r.out, r.lse,
                                      op)) {
      r.path = AttentionPath::kCudnn;
      return r;
    }
  }
  if (!own) return FusedAttention{};
  r.out = Tensor::empty(qs, q.dtype(), q.device());
  r.path = AttentionPath::kGenesis;
  if (r.out.numel() > 0) cuda::flash_attention_forward(o, r.out, r.lse);
  return r;
}

std::tuple<Tensor, Tensor, Tensor> fused_attention_backward(
    const Tensor& dout, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
    const Tensor& lse, const Tensor& mask, double scale, bool causal, double dropout_p,
    const Tensor& rng, bool cudnn, const char* op) {
  cuda::FlashAttentionOperands o = operands(q, k, v, mask, scale, causal, op);
  if (dropout_p > 0) {
    GENESIS_CHECK_VALUE(dropout_p < 1 && rng.defined() && rng.is_cuda() &&
                            rng.device() == q.device() && rng.dtype() == ScalarType::Int64 &&
                            rng.numel() == 2 && rng.is_contiguous(),
                        op, "the fused attention's dropout backward takes the forward's rng");
    o.dropout_p = dropout_p;
    o.rng = rng;
  }
  if (q.dtype() == ScalarType::Float32) cudnn = false;
  check_operand(dout, q, "grad_output", op);
  const Shape& qs = q.sizes();
  const Shape kv{qs[0], qs[1], k.sizes()[2], qs[3]};
  GENESIS_CHECK(dout.sizes() == qs && out.sizes() == qs && out.strides()[3] == 1 &&
                    out.dtype() == q.dtype() && lse.sizes() == Shape({qs[0], qs[1], qs[2]}) &&
                    lse.dtype() == ScalarType::Float32 && lse.is_contiguous(),
                op, "grad_output ", shape_str(dout.sizes()), ", out ", shape_str(out.sizes()),
                " and lse ", shape_str(lse.sizes()), " are not those of query ", shape_str(qs));
  const Shape grouped{qs[0], k.sizes()[1], k.sizes()[2], qs[3]};
  if (cudnn && !mask.defined()) {
    // q, k and v split from one product: gradients in one buffer laid out as it (Note [Sibling
    // views]), so that the split's backward need not join them by a copy
    std::vector<Tensor> siblings = empty_like_siblings({o.q, o.k, o.v});
    const bool one_buffer = siblings.size() == 3;
    Tensor dq = one_buffer ? siblings[0] : like_operand(o.q, qs);
    Tensor dk = one_buffer ? siblings[1] : like_operand(o.k, grouped);
    Tensor dv = one_buffer ? siblings[2] : like_operand(o.v, grouped);
    if (cuda::cudnn_attention_backward(o.q, o.k, o.v, out, rows_contiguous(dout), lse, scale,
                                       causal, dropout_p, rng, dq, dk, dv, op))
      return {dq, dk, dv};
    // genesis's kernels would drop other weights than cuDNN's forward did
    GENESIS_CHECK(dropout_p == 0, op,
                  "cuDNN ran the forward with dropout but refuses its backward; run attention "
                  "with dropout under genesis.backends.cuda.enable_cudnn_sdp(False)");
  }
  // genesis's kernels read a contiguous result (cuDNN's may be laid out as q).
  const Tensor out_c = contiguous(out);
  Tensor dq_accum = Tensor::empty(qs, ScalarType::Float32, q.device());
  fill_(dq_accum, Scalar(0.0), op);
  Tensor delta = Tensor::empty({qs[0], qs[1], qs[2]}, ScalarType::Float32, q.device());
  Tensor dk = Tensor::empty(kv, q.dtype(), q.device());
  Tensor dv = Tensor::empty(kv, q.dtype(), q.device());
  if (dq_accum.numel() > 0 || dk.numel() > 0)
    cuda::flash_attention_backward(o, out_c, rows_contiguous(dout), lse, delta, dq_accum, dk, dv);
  Tensor dq = to(dq_accum, q.dtype(), q.device(), false);
  if (grouped[1] == qs[1]) return {dq, dk, dv};
  // one gradient per query head: sum each group onto its key head
  const Shape split{qs[0], grouped[1], qs[1] / grouped[1], grouped[2], qs[3]};
  return {dq, sum(view(dk, split), Shape({2}), false, std::nullopt),
          sum(view(dv, split), Shape({2}), false, std::nullopt)};
}

Tensor attention_dropout_mask(int64_t bh, int64_t L, int64_t S, double dropout_p, uint64_t seed,
                              uint64_t offset) {
  GENESIS_CHECK_VALUE(bh >= 0 && L >= 0 && S >= 0 && dropout_p >= 0 && dropout_p < 1,
                      "attention_dropout_mask", "expected sizes >= 0 and 0 <= dropout_p < 1");
  Tensor mask = Tensor::empty({bh, L, S}, ScalarType::Bool, kCPU);
  bool* out = mask.mutable_data_as<bool>();
  const float keep = static_cast<float>(1 - dropout_p);
  for (int64_t b = 0; b < bh; ++b)
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j < S; ++j) {
        const philox::Words w = attention_dropout::block_words(seed, offset, b, i, j, L, S);
        out[(b * L + i) * S + j] = attention_dropout::keeps(w, i, j, keep);
      }
  return mask;
}

}  // namespace genesis::ops

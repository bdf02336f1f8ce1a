// Scaled-dot-product attention through cuDNN's fused attention engines (cuda/cudnn_attention.h).
#include "cuda/cudnn_attention.h"

// Note [Attention through cuDNN]
// cuDNN's fused attention (the flash-attention engines its heuristics pick for Hopper, with TMA
// and wgmma) is reached through its graph API, described with NVIDIA's header-only C++ frontend
// (Note [cuDNN's graph API] in cudnn_graph_api.h). The build compiles this path only when it
// finds that frontend and cudnn.h (CMakeLists.txt: GENESIS_CUDNN_FRONTEND_INCLUDE and
// GENESIS_CUDNN_INCLUDE, or the Python environment's nvidia-cudnn-frontend and
// nvidia-cudnn-cu13 packages); without them cudnn_attention_built() is false and attention
// runs on genesis's own kernels (kernels/flash_attention_*.cu), as it does for what cuDNN
// refuses.
// Graphs: one per problem (device, dtype, sizes, strides, scale, causal, pass), built on first
// use (tens of milliseconds: cuDNN compiles its kernels then) and kept for the process; a
// problem cuDNN refuses is remembered as refused, so the next call goes straight to genesis's
// kernels. Execution runs on the device's cuDNN handle under its lock, on the current stream,
// with a workspace from the caching pool.
// Semantics match genesis's kernels: causal is top-left (query i sees keys j <= i, PyTorch's
// is_causal), the saved statistics are each row's natural-log log-sum-exp of the scaled
// scores, (B, H, L) float32, so either backward can follow either forward; dk and dv come back
// summed over each group of query heads (grouped-query attention).

// Note [Dropout through cuDNN]
// cuDNN's attention graphs can drop weights themselves, from a Philox key ("Seed") and first
// counter ("Offset") read from device memory when the graph runs. ops::fused_attention takes
// them from genesis's generator as its own kernels would (ops::cuda_counters: by value, or a
// genesis graph's buffer during a capture, Note [Random ops in graphs]) and writes them into the
// two-item int64 `rng` tensor on the stream before the graph runs
// (cuda::write_philox_args); the backward graph reads the same tensor, so it drops the same
// weights, and a captured forward and backward replay with new draws. cuDNN's masks follow its
// own rule, not Note [Dropout in fused attention]'s, so they differ from genesis's kernels'
// for the same seed; a forward that ran here must have its backward here too (ops raises if
// cuDNN then refuses the backward graph). The generator advances by the count genesis's kernels
// reserve (attention_dropout::counters), more than cuDNN's per-thread draws use.

#include <memory>
#include <unordered_map>
#include <vector>

#include "core/errors.h"
#include "cuda/cudnn.h"
#include "cuda/cudnn_api.h"
#include "cuda/cudnn_graph_api.h"
#include "cuda/stream.h"

namespace genesis::cuda {

namespace {

namespace fe = cudnn_frontend;

// The tensors' ids in a graph; far above the small ids the frontend gives its own internal
// tensors (the scale, say), which a user id must not collide with.
enum Uid : int64_t { kQ = 1 << 20, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV, kSeed, kOffset };

// Everything a graph is built for (Note [Attention through cuDNN]: one graph per problem).
struct Problem {
  int device = 0;
  bool backward = false, causal = false, bf16 = false;
  int64_t b = 0, h = 0, hk = 0, l = 0, s = 0, e = 0;
  std::vector<int64_t> strides;  // q, k, v, out, then (backward) dout, dq, dk, dv
  double scale = 1.0;
  double dropout = 0.0;  // the probability cuDNN's own Philox draws drop a weight with

  auto tie() const {
    return std::tie(device, backward, causal, bf16, b, h, hk, l, s, e, strides, scale, dropout);
  }
  bool operator<(const Problem& o) const { return tie() < o.tie(); }
};

cudnn::GraphCache<Problem> g_graphs;

std::vector<int64_t> strides_of(const Tensor& t) {
  return {t.strides()[0], t.strides()[1], t.strides()[2], t.strides()[3]};
}

std::shared_ptr<fe::graph::Tensor_attributes> input(fe::graph::Graph& g, const char* name, Uid uid,
                                                    std::vector<int64_t> dims,
                                                    std::vector<int64_t> strides) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim(std::move(dims))
                      .set_stride(std::move(strides)));
}

// Builds p's graph on handle; a null graph when cuDNN refuses it (or the frontend throws).
cudnn::KeptGraph build(const Problem& p, cudnnHandle_t handle) {
  auto g = cudnn::half_graph(p.device, p.bf16);
  const std::vector<int64_t> qd{p.b, p.h, p.l, p.e}, kd{p.b, p.hk, p.s, p.e};
  const auto at = [&](int i) {
    return std::vector<int64_t>(p.strides.begin() + 4 * i, p.strides.begin() + 4 * i + 4);
  };
  auto q = input(*g, "Q", kQ, qd, at(0));
  auto k = input(*g, "K", kK, kd, at(1));
  auto v = input(*g, "V", kV, kd, at(2));
  // Dropout: the Philox key and first counter as one-item int64 tensors in device memory (Note
  // [Dropout through cuDNN])
  std::shared_ptr<fe::graph::Tensor_attributes> seed, offset;
  if (p.dropout > 0) {
    seed = input(*g, "Seed", kSeed, {1, 1, 1, 1}, {1, 1, 1, 1});
    offset = input(*g, "Offset", kOffset, {1, 1, 1, 1}, {1, 1, 1, 1});
    seed->set_data_type(fe::DataType_t::INT64);
    offset->set_data_type(fe::DataType_t::INT64);
  }
  if (!p.backward) {
    auto attrs = fe::graph::SDPA_attributes()
                     .set_name("sdpa")
                     .set_generate_stats(true)
                     .set_attn_scale(static_cast<float>(p.scale))
                     .set_causal_mask(p.causal);
    if (p.dropout > 0) attrs.set_dropout(static_cast<float>(p.dropout), seed, offset);
    auto [o, stats] = g->sdpa(q, k, v, attrs);
    o->set_output(true).set_uid(kO).set_dim(qd).set_stride(at(3));
    stats->set_output(true)
        .set_uid(kStats)
        .set_data_type(fe::DataType_t::FLOAT)
        .set_dim({p.b, p.h, p.l, 1})
        .set_stride({p.h * p.l, p.l, 1, 1});
  } else {
    auto o = input(*g, "O", kO, qd, at(3));
    auto dout = input(*g, "dO", kDO, qd, at(4));
    auto stats = g->tensor(fe::graph::Tensor_attributes()
                               .set_name("Stats")
                               .set_uid(kStats)
                               .set_dim({p.b, p.h, p.l, 1})
                               .set_stride({p.h * p.l, p.l, 1, 1})
                               .set_data_type(fe::DataType_t::FLOAT));
    auto attrs = fe::graph::SDPA_backward_attributes()
                     .set_name("sdpa_backward")
                     .set_attn_scale(static_cast<float>(p.scale))
                     .set_causal_mask(p.causal);
    if (p.dropout > 0) attrs.set_dropout(static_cast<float>(p.dropout), seed, offset);
    auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, dout, stats, attrs);
    dq->set_output(true).set_uid(kDQ).set_dim(qd).set_stride(at(5));
    dk->set_output(true).set_uid(kDK).set_dim(kd).set_stride(at(6));
    dv->set_output(true).set_uid(kDV).set_dim(kd).set_stride(at(7));
  }
  return cudnn::finish(std::move(g), handle);
}

// Runs p on the current stream with the tensors' addresses; false when cuDNN refuses p.
bool run(const Problem& p, std::unordered_map<int64_t, void*>& pack, const char* op) {
  if (!cudnn_available()) return false;
  cudnn::Session session(p.device, op);
  auto handle = reinterpret_cast<cudnnHandle_t>(session.handle());
  const cudnn::KeptGraph kept =
      g_graphs.get(p, [&](const Problem& problem) { return build(problem, handle); });
  if (!kept.graph) return false;
  fe::error_t status = cudnn::execute(kept, handle, pack, Device{DeviceType::CUDA, p.device});
  GENESIS_CHECK(status.is_good(), op, "cuDNN's fused attention failed: ", status.get_message());
  return true;
}

void* address(const Tensor& t) { return const_cast<void*>(t.data()); }

Problem problem_of(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                   double scale, bool causal, double dropout, bool backward) {
  Problem p;
  p.dropout = dropout;
  p.device = q.device().index;
  p.backward = backward;
  p.causal = causal;
  p.bf16 = q.dtype() == ScalarType::BFloat16;
  p.b = q.sizes()[0];
  p.h = q.sizes()[1];
  p.l = q.sizes()[2];
  p.e = q.sizes()[3];
  p.hk = k.sizes()[1];
  p.s = k.sizes()[2];
  p.scale = scale;
  for (const Tensor* t : {&q, &k, &v, &out})
    for (int64_t st : strides_of(*t)) p.strides.push_back(st);
  return p;
}

// A result's layout cuDNN writes: unit last stride, the others multiples of 8 items (16 bytes),
// a 16-byte aligned start.
bool strides_fit(const Tensor& t) {
  if (t.strides()[3] != 1 || reinterpret_cast<uintptr_t>(t.data()) % 16 != 0) return false;
  for (int i = 0; i < 3; ++i)
    if (t.strides()[i] % 8 != 0 && t.sizes()[i] > 1) return false;
  return true;
}

// What cuDNN's engines take at all (the rest goes to genesis's kernels without a graph build):
// 16-bit operands, head dims a multiple of 8 up to 256, 16-byte aligned rows.
bool shape_fits(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t e = q.sizes()[3];
  if (q.dtype() != ScalarType::Float16 && q.dtype() != ScalarType::BFloat16) return false;
  if (e % 8 != 0 || e > 256 || q.numel() == 0 || k.numel() == 0) return false;
  for (const Tensor* t : {&q, &k, &v}) {
    if (reinterpret_cast<uintptr_t>(t->data()) % 16 != 0) return false;
    for (int i = 0; i < 3; ++i)
      if (t->strides()[i] % 8 != 0) return false;
  }
  return true;
}

// The seed and offset items of rng (Note [Dropout through cuDNN]) into the variant pack.
void pack_rng(std::unordered_map<int64_t, void*>& pack, double dropout, const Tensor& rng) {
  if (dropout <= 0) return;
  pack[kSeed] = address(rng);
  pack[kOffset] = static_cast<int64_t*>(address(rng)) + 1;
}

}  // namespace

bool cudnn_attention_built() { return true; }

bool cudnn_attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                             bool causal, double dropout_p, const Tensor& rng, const Tensor& out,
                             const Tensor& lse, const char* op) {
  if (!shape_fits(q, k, v) || !strides_fit(out)) return false;
  const Problem p = problem_of(q, k, v, out, scale, causal, dropout_p, false);
  std::unordered_map<int64_t, void*> pack{{kQ, address(q)},
                                          {kK, address(k)},
                                          {kV, address(v)},
                                          {kO, out.mutable_data()},
                                          {kStats, lse.mutable_data()}};
  pack_rng(pack, dropout_p, rng);
  return run(p, pack, op);
}

bool cudnn_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                              const Tensor& dout, const Tensor& lse, double scale, bool causal,
                              double dropout_p, const Tensor& rng, const Tensor& dq,
                              const Tensor& dk, const Tensor& dv, const char* op) {
  if (!shape_fits(q, k, v) || !shape_fits(dout, k, v) || !strides_fit(out) || !strides_fit(dq) ||
      !strides_fit(dk) || !strides_fit(dv))
    return false;
  Problem p = problem_of(q, k, v, out, scale, causal, dropout_p, true);
  for (const Tensor* t : {&dout, &dq, &dk, &dv})
    for (int64_t st : strides_of(*t)) p.strides.push_back(st);
  std::unordered_map<int64_t, void*> pack{
      {kQ, address(q)},         {kK, address(k)},         {kV, address(v)},
      {kO, address(out)},       {kDO, address(dout)},     {kStats, address(lse)},
      {kDQ, dq.mutable_data()}, {kDK, dk.mutable_data()}, {kDV, dv.mutable_data()}};
  pack_rng(pack, dropout_p, rng);
  return run(p, pack, op);
}

}  // namespace genesis::cuda

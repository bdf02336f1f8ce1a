// Scaled-dot-product attention through cuDNN's fused attention engines (cuda/cudnn_attention.h).
#include "cuda/cudnn_attention.h"

// Note [Attention through cuDNN]
// cuDNN's fused attention (the flash-attention engines its heuristics pick for Hopper, with TMA
// and wgmma) is reached through its graph API, described with NVIDIA's header-only C++ frontend
// (cudnn_frontend.h, the nvidia-cudnn-frontend package). The build compiles this path only when
// it finds that frontend and cudnn.h (CMakeLists.txt: GENESIS_CUDNN_FRONTEND_INCLUDE and
// GENESIS_CUDNN_INCLUDE, or the Python environment's nvidia-cudnn-frontend and
// nvidia-cudnn-cu13 packages); without them cudnn_attention_built() is false and attention
// runs on genesis's own kernels (kernels/flash_attention_*.cu), as it does for what cuDNN
// refuses.
// Loading: cuDNN stays unlinked (Note [Loading cuDNN] in cudnn.cpp). The frontend calls the
// backend API's C functions (cudnnBackendCreateDescriptor, cudnnBackendExecute, ...) by name;
// this file defines those names itself, hidden inside genesis's module, each forwarding to the
// function of the same name in the libcudnn.so.9 that cudnn.cpp loaded. (The frontend's own
// dynamic-loading mode would also dlopen libcudart.so, which genesis, linked to the static CUDA
// runtime, does not have.)
// Graphs: one per problem (device, dtype, sizes, strides, scale, causal, pass), built on first
// use (tens of milliseconds: cuDNN compiles its kernels then) and kept for the process; a
// problem cuDNN refuses is remembered as refused, so the next call goes straight to genesis's
// kernels. Execution runs on the device's cuDNN handle under its lock, on the current stream,
// with a workspace from the caching pool.
// Semantics match genesis's kernels: causal is top-left (query i sees keys j <= i, PyTorch's
// is_causal), the saved statistics are each row's natural-log log-sum-exp of the scaled
// scores, (B, H, L) float32, so either backward can follow either forward; dk and dv come back
// summed over each group of query heads (grouped-query attention).

// Every system and standard header the frontend includes comes first, outside the hidden
// region below: a standard header read inside it has libstdc++'s templates instantiated hidden
// in genesis's module (std::ostream::_M_insert<long>, say), which crashed beside another
// library's libstdc++ state (PyTorch imported first).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "core/errors.h"
#include "cuda/cudnn.h"
#include "cuda/cudnn_api.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"

// The frontend's classes and functions stay inside genesis's module: PyTorch carries its own
// copy of the frontend (another version), which must not interpose on these.
#pragma GCC visibility push(hidden)
#include <cudnn.h>
#include <cudnn_frontend.h>
#include <nvrtc.h>
#pragma GCC visibility pop

namespace genesis_cudnn_symbols {

// The address of `name` in the loaded libcudnn.so.9 (null when absent: an older cuDNN).
inline void* cudnn_symbol(const char* name) {
  void* lib = genesis::cuda::cudnn::library("scaled_dot_product_attention");
  return lib ? dlsym(lib, name) : nullptr;
}

template <typename Fn>
Fn* resolve(const char* name) {
  return reinterpret_cast<Fn*>(cudnn_symbol(name));
}

}  // namespace genesis_cudnn_symbols

// The backend API entry points the frontend calls (Note [Attention through cuDNN]). Each
// resolves once; a function missing from the loaded library answers NOT_SUPPORTED, which the
// frontend reports as a refusal.
#define GENESIS_CUDNN_FORWARD(name, params, args)                              \
  extern "C" __attribute__((visibility("hidden"))) cudnnStatus_t name params { \
    static auto* fn = genesis_cudnn_symbols::resolve<decltype(::name)>(#name); \
    return fn ? fn args : CUDNN_STATUS_NOT_SUPPORTED;                          \
  }

GENESIS_CUDNN_FORWARD(cudnnBackendCreateDescriptor,
                      (cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t* desc),
                      (type, desc))
GENESIS_CUDNN_FORWARD(cudnnBackendDestroyDescriptor, (cudnnBackendDescriptor_t desc), (desc))
GENESIS_CUDNN_FORWARD(cudnnBackendInitialize, (cudnnBackendDescriptor_t desc), (desc))
GENESIS_CUDNN_FORWARD(cudnnBackendFinalize, (cudnnBackendDescriptor_t desc), (desc))
GENESIS_CUDNN_FORWARD(cudnnBackendSetAttribute,
                      (cudnnBackendDescriptor_t desc, cudnnBackendAttributeName_t name,
                       cudnnBackendAttributeType_t type, int64_t count, const void* values),
                      (desc, name, type, count, values))
GENESIS_CUDNN_FORWARD(cudnnBackendGetAttribute,
                      (cudnnBackendDescriptor_t const desc, cudnnBackendAttributeName_t name,
                       cudnnBackendAttributeType_t type, int64_t requested, int64_t* count,
                       void* values),
                      (desc, name, type, requested, count, values))
GENESIS_CUDNN_FORWARD(cudnnBackendExecute,
                      (cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                       cudnnBackendDescriptor_t pack),
                      (handle, plan, pack))
GENESIS_CUDNN_FORWARD(cudnnGetStream, (cudnnHandle_t handle, cudaStream_t* stream),
                      (handle, stream))
GENESIS_CUDNN_FORWARD(cudnnSetStream, (cudnnHandle_t handle, cudaStream_t stream), (handle, stream))
GENESIS_CUDNN_FORWARD(cudnnCreate, (cudnnHandle_t * handle), (handle))
GENESIS_CUDNN_FORWARD(cudnnDestroy, (cudnnHandle_t handle), (handle))

extern "C" __attribute__((visibility("hidden"))) size_t cudnnGetVersion() {
  static auto* fn = genesis_cudnn_symbols::resolve<decltype(::cudnnGetVersion)>("cudnnGetVersion");
  return fn ? fn() : 0;
}

extern "C" __attribute__((visibility("hidden"))) const char* cudnnGetErrorString(
    cudnnStatus_t status) {
  static auto* fn =
      genesis_cudnn_symbols::resolve<decltype(::cudnnGetErrorString)>("cudnnGetErrorString");
  return fn ? fn(status) : "cuDNN error";
}

extern "C" __attribute__((visibility("hidden"))) void cudnnGetLastErrorString(char* message,
                                                                              size_t max_size) {
  static auto* fn = genesis_cudnn_symbols::resolve<decltype(::cudnnGetLastErrorString)>(
      "cudnnGetLastErrorString");
  if (fn) {
    fn(message, max_size);
  } else if (max_size > 0) {
    message[0] = '\0';
  }
}

#undef GENESIS_CUDNN_FORWARD

// The frontend also carries engines it compiles with NVRTC (Blackwell norms) that attention
// never reaches; their NVRTC calls answer "not supported" here rather than linking NVRTC.
#define GENESIS_NO_NVRTC(name, params)                                       \
  extern "C" __attribute__((visibility("hidden"))) nvrtcResult name params { \
    return NVRTC_ERROR_INVALID_INPUT;                                        \
  }
GENESIS_NO_NVRTC(nvrtcCreateProgram, (nvrtcProgram*, const char*, const char*, int,
                                      const char* const*, const char* const*))
GENESIS_NO_NVRTC(nvrtcCompileProgram, (nvrtcProgram, int, const char* const*))
GENESIS_NO_NVRTC(nvrtcDestroyProgram, (nvrtcProgram*))
GENESIS_NO_NVRTC(nvrtcGetCUBIN, (nvrtcProgram, char*))
GENESIS_NO_NVRTC(nvrtcGetCUBINSize, (nvrtcProgram, size_t*))
GENESIS_NO_NVRTC(nvrtcGetProgramLog, (nvrtcProgram, char*))
GENESIS_NO_NVRTC(nvrtcGetProgramLogSize, (nvrtcProgram, size_t*))
#undef GENESIS_NO_NVRTC

namespace genesis::cuda {

namespace {

namespace fe = cudnn_frontend;

// The tensors' ids in a graph; far above the small ids the frontend gives its own internal
// tensors (the scale, say), which a user id must not collide with.
enum Uid : int64_t { kQ = 1 << 20, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };

// Everything a graph is built for (Note [Attention through cuDNN]: one graph per problem).
struct Problem {
  int device = 0;
  bool backward = false, causal = false, bf16 = false;
  int64_t b = 0, h = 0, hk = 0, l = 0, s = 0, e = 0;
  std::vector<int64_t> strides;  // q, k, v, then (backward) dout
  double scale = 1.0;

  auto tie() const {
    return std::tie(device, backward, causal, bf16, b, h, hk, l, s, e, strides, scale);
  }
  bool operator<(const Problem& o) const { return tie() < o.tie(); }
};

struct Built {
  std::shared_ptr<fe::graph::Graph> graph;  // null: refused
  int64_t workspace = 0;
};

std::mutex g_graphs_mutex;
std::map<Problem, Built> g_graphs;

std::vector<int64_t> strides_of(const Tensor& t) {
  return {t.strides()[0], t.strides()[1], t.strides()[2], t.strides()[3]};
}

std::vector<int64_t> row_major(int64_t h, int64_t l, int64_t e) { return {h * l * e, l * e, e, 1}; }

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
Built build(const Problem& p, cudnnHandle_t handle) {
  auto g = std::make_shared<fe::graph::Graph>();
  // the architecture from genesis's own device query (the frontend would otherwise ask the
  // CUDA runtime itself)
  const DeviceProperties props = device_properties(p.device);
  g->set_sm_version(props.major * 10 + props.minor);
  g->set_io_data_type(p.bf16 ? fe::DataType_t::BFLOAT16 : fe::DataType_t::HALF)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const std::vector<int64_t> qd{p.b, p.h, p.l, p.e}, kd{p.b, p.hk, p.s, p.e};
  const auto at = [&](int i) {
    return std::vector<int64_t>(p.strides.begin() + 4 * i, p.strides.begin() + 4 * i + 4);
  };
  auto q = input(*g, "Q", kQ, qd, at(0));
  auto k = input(*g, "K", kK, kd, at(1));
  auto v = input(*g, "V", kV, kd, at(2));
  if (!p.backward) {
    auto attrs = fe::graph::SDPA_attributes()
                     .set_name("sdpa")
                     .set_generate_stats(true)
                     .set_attn_scale(static_cast<float>(p.scale))
                     .set_causal_mask(p.causal);
    auto [o, stats] = g->sdpa(q, k, v, attrs);
    o->set_output(true).set_uid(kO).set_dim(qd).set_stride(row_major(p.h, p.l, p.e));
    stats->set_output(true)
        .set_uid(kStats)
        .set_data_type(fe::DataType_t::FLOAT)
        .set_dim({p.b, p.h, p.l, 1})
        .set_stride({p.h * p.l, p.l, 1, 1});
  } else {
    auto o = input(*g, "O", kO, qd, row_major(p.h, p.l, p.e));
    auto dout = input(*g, "dO", kDO, qd, at(3));
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
    auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, dout, stats, attrs);
    dq->set_output(true).set_uid(kDQ).set_dim(qd).set_stride(row_major(p.h, p.l, p.e));
    dk->set_output(true).set_uid(kDK).set_dim(kd).set_stride(row_major(p.hk, p.s, p.e));
    dv->set_output(true).set_uid(kDV).set_dim(kd).set_stride(row_major(p.hk, p.s, p.e));
  }
  Built out;
  try {
    if (!g->validate().is_good() || !g->build_operation_graph(handle).is_good() ||
        !g->create_execution_plans({fe::HeurMode_t::A}).is_good() ||
        !g->check_support(handle).is_good() ||
        !g->build_plans(handle, fe::BuildPlanPolicy_t::HEURISTICS_CHOICE).is_good() ||
        !g->get_workspace_size(out.workspace).is_good())
      return Built{};
  } catch (const std::exception&) {
    return Built{};
  }
  out.graph = std::move(g);
  return out;
}

// Runs p on the current stream with the tensors' addresses; false when cuDNN refuses p.
bool run(const Problem& p, std::unordered_map<int64_t, void*>& pack, const char* op) {
  if (!cudnn_available()) return false;
  cudnn::Session session(p.device, op);
  auto handle = reinterpret_cast<cudnnHandle_t>(session.handle());
  Built built;
  {
    std::lock_guard<std::mutex> lock(g_graphs_mutex);
    auto it = g_graphs.find(p);
    if (it == g_graphs.end()) it = g_graphs.emplace(p, build(p, handle)).first;
    built = it->second;
  }
  if (!built.graph) return false;
  Tensor workspace;
  if (built.workspace > 0)
    workspace =
        Tensor::empty({built.workspace}, ScalarType::UInt8, Device{DeviceType::CUDA, p.device});
  void* ws = workspace.defined() ? workspace.mutable_data() : nullptr;
  fe::error_t status = built.graph->execute(handle, pack, ws);
  GENESIS_CHECK(status.is_good(), op, "cuDNN's fused attention failed: ", status.get_message());
  return true;
}

void* address(const Tensor& t) { return const_cast<void*>(t.data()); }

Problem problem_of(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal,
                   bool backward) {
  Problem p;
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
  for (const Tensor* t : {&q, &k, &v})
    for (int64_t st : strides_of(*t)) p.strides.push_back(st);
  return p;
}

// What cuDNN's engines take at all (the rest goes to genesis's kernels without a graph build):
// head dims a multiple of 8 up to 256, 16-byte aligned rows.
bool shape_fits(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t e = q.sizes()[3];
  if (e % 8 != 0 || e > 256 || q.numel() == 0 || k.numel() == 0) return false;
  for (const Tensor* t : {&q, &k, &v}) {
    if (reinterpret_cast<uintptr_t>(t->data()) % 16 != 0) return false;
    for (int i = 0; i < 3; ++i)
      if (t->strides()[i] % 8 != 0) return false;
  }
  return true;
}

}  // namespace

bool cudnn_attention_built() { return true; }

bool cudnn_attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                             bool causal, const Tensor& out, const Tensor& lse, const char* op) {
  if (!shape_fits(q, k, v)) return false;
  const Problem p = problem_of(q, k, v, scale, causal, false);
  std::unordered_map<int64_t, void*> pack{{kQ, address(q)},
                                          {kK, address(k)},
                                          {kV, address(v)},
                                          {kO, out.mutable_data()},
                                          {kStats, lse.mutable_data()}};
  return run(p, pack, op);
}

bool cudnn_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                              const Tensor& dout, const Tensor& lse, double scale, bool causal,
                              const Tensor& dq, const Tensor& dk, const Tensor& dv,
                              const char* op) {
  if (!shape_fits(q, k, v) || !shape_fits(dout, k, v)) return false;
  Problem p = problem_of(q, k, v, scale, causal, true);
  for (int64_t st : strides_of(dout)) p.strides.push_back(st);
  std::unordered_map<int64_t, void*> pack{
      {kQ, address(q)},         {kK, address(k)},         {kV, address(v)},
      {kO, address(out)},       {kDO, address(dout)},     {kStats, address(lse)},
      {kDQ, dq.mutable_data()}, {kDK, dk.mutable_data()}, {kDV, dv.mutable_data()}};
  return run(p, pack, op);
}

}  // namespace genesis::cuda

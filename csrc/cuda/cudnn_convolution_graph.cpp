// Convolutions through cuDNN's graph API (cuda/cudnn_convolution_graph.h).
#include "cuda/cudnn_convolution_graph.h"

// Note [Convolutions through cuDNN's graph API]
// The legacy calls (Note [Convolutions through cuDNN] in cudnn_convolution.cpp) choose among
// cuDNN's older kernels by the v7 heuristics. For float16 and bfloat16 on Hopper the graph
// API's engines (what PyTorch's cuDNN v8 path runs) are faster, so such a convolution with one
// group goes through a graph, described with the frontend (Note [cuDNN's graph API] in
// cudnn_graph_api.h): one per problem (device, pass, dtype, sizes, geometry, determinism),
// built on first use and kept for the process, with the engine cuDNN's heuristics (mode A)
// rank first among those that support it; the tensors contiguous or channels-last (Note
// [Convolution layouts] in ops/convolution.cpp); under genesis.backends.cudnn.deterministic the
// engines cuDNN marks non-deterministic are left out. A problem cuDNN refuses is remembered as
// refused and goes to the legacy call, as do float32 (whose TF32 policy the legacy path keeps),
// float64, grouped convolutions, genesis.backends.cudnn.benchmark (the legacy path's timed
// search) and tensors not 16-byte aligned. Execution runs on the device's cuDNN handle under
// its lock, on the current stream, with a workspace from the caching pool; a failed execution
// also falls back to the legacy call.
#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/errors.h"
#include "cuda/cudnn_api.h"
#include "cuda/cudnn_graph_api.h"

namespace genesis::cuda {

namespace {

namespace fe = cudnn_frontend;

// The tensors' ids in a graph, far above the small ids the frontend gives its own tensors.
enum Uid : int64_t { kX = 1 << 20, kW, kY };

// Everything a graph is built for.
struct Problem {
  int device = 0, pass = 0, rank = 4;
  bool bf16 = false, deterministic = false, channels_last = false;
  std::array<int, 5> x{}, w{}, y{};
  std::array<int, 3> pad{}, stride{}, dilation{};

  auto tie() const {
    return std::tie(device, pass, rank, bf16, deterministic, channels_last, x, w, y, pad, stride,
                    dilation);
  }
  bool operator<(const Problem& o) const { return tie() < o.tie(); }
};

cudnn::GraphCache<Problem> g_graphs;

std::vector<int64_t> dims_of(const std::array<int, 5>& sizes, int rank) {
  return std::vector<int64_t>(sizes.begin(), sizes.begin() + rank);
}

// The strides of (N, C, *spatial) dims, row-major or channels-last.
std::vector<int64_t> strides_of(const std::vector<int64_t>& dims, bool channels_last) {
  return channels_last ? channels_last_strides(dims) : contiguous_strides(dims);
}

// Builds p's graph on handle; a null graph when cuDNN refuses it (or the frontend throws).
cudnn::KeptGraph build(const Problem& p, cudnnHandle_t handle) {
  auto g = cudnn::half_graph(p.device, p.bf16);
  const auto xd = dims_of(p.x, p.rank), wd = dims_of(p.w, p.rank), yd = dims_of(p.y, p.rank);
  const size_t spatial = static_cast<size_t>(p.rank - 2);
  const std::vector<int64_t> pad(p.pad.begin(), p.pad.begin() + spatial),
      stride(p.stride.begin(), p.stride.begin() + spatial),
      dilation(p.dilation.begin(), p.dilation.begin() + spatial);
  auto tensor = [&](const char* name, Uid uid, const std::vector<int64_t>& dims) {
    return g->tensor(
        fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(dims).set_stride(
            strides_of(dims, p.channels_last)));
  };
  std::shared_ptr<fe::graph::Tensor_attributes> out;
  std::vector<int64_t> out_dims;
  Uid out_uid = kY;
  switch (static_cast<ConvolutionPass>(p.pass)) {
    case ConvolutionPass::Forward:
      out = g->conv_fprop(tensor("X", kX, xd), tensor("W", kW, wd),
                          fe::graph::Conv_fprop_attributes()
                              .set_name("fprop")
                              .set_padding(pad)
                              .set_stride(stride)
                              .set_dilation(dilation));
      out_dims = yd, out_uid = kY;
      break;
    case ConvolutionPass::BackwardData:
      out = g->conv_dgrad(tensor("DY", kY, yd), tensor("W", kW, wd),
                          fe::graph::Conv_dgrad_attributes()
                              .set_name("dgrad")
                              .set_padding(pad)
                              .set_stride(stride)
                              .set_dilation(dilation));
      out_dims = xd, out_uid = kX;
      break;
    case ConvolutionPass::BackwardFilter:
      out = g->conv_wgrad(tensor("DY", kY, yd), tensor("X", kX, xd),
                          fe::graph::Conv_wgrad_attributes()
                              .set_name("wgrad")
                              .set_padding(pad)
                              .set_stride(stride)
                              .set_dilation(dilation));
      out_dims = wd, out_uid = kW;
      break;
  }
  out->set_output(true).set_uid(out_uid).set_dim(out_dims).set_stride(
      strides_of(out_dims, p.channels_last));
  if (!p.deterministic) return cudnn::finish(std::move(g), handle);
  return cudnn::finish(std::move(g), handle, {fe::NumericalNote_t::NONDETERMINISTIC});
}

bool aligned(const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data()) % 16 == 0; }

}  // namespace

bool cudnn_graph_convolution(ConvolutionPass pass, const CudnnConvolution& c, const Tensor& a,
                             const Tensor& b, const Tensor& out, const char* op) {
  const bool half = c.dtype == ScalarType::Float16 || c.dtype == ScalarType::BFloat16;
  if (!half || c.groups != 1 || c.benchmark || !aligned(a) || !aligned(b) || !aligned(out) ||
      !cudnn_available())
    return false;
  Problem p;
  p.device = out.device().index;
  p.pass = static_cast<int>(pass);
  p.rank = c.rank;
  p.bf16 = c.dtype == ScalarType::BFloat16;
  p.deterministic = c.deterministic;
  p.channels_last = c.channels_last;
  for (int i = 0; i < c.rank; ++i) p.x[i] = c.x[i], p.w[i] = c.w[i], p.y[i] = c.y[i];
  for (int i = 0; i < c.rank - 2; ++i)
    p.pad[i] = c.pad[i], p.stride[i] = c.stride[i], p.dilation[i] = c.dilation[i];
  cudnn::Session session(p.device, op);
  auto handle = reinterpret_cast<cudnnHandle_t>(session.handle());
  const cudnn::KeptGraph kept =
      g_graphs.get(p, [&](const Problem& problem) { return build(problem, handle); });
  if (!kept.graph) return false;
  // a, b and out by pass: forward (x, w -> y), backward data (dy, w -> dx), filter (x, dy -> dw)
  const Uid uids[3][3] = {{kX, kW, kY}, {kY, kW, kX}, {kX, kY, kW}};
  const Uid* u = uids[p.pass];
  std::unordered_map<int64_t, void*> pack{{u[0], const_cast<void*>(a.data())},
                                          {u[1], const_cast<void*>(b.data())},
                                          {u[2], out.mutable_data()}};
  return cudnn::execute(kept, handle, pack, out.device()).is_good();
}

std::pair<int64_t, int64_t> cudnn_graph_convolution_counts() { return g_graphs.counts(); }

}  // namespace genesis::cuda

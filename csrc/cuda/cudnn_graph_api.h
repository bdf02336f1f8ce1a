#pragma once
// NVIDIA's header-only cuDNN frontend (C++ over cuDNN's graph API), included hidden inside
// genesis's module, for the files that describe graphs with it: cudnn_attention.cpp and
// cudnn_convolution_graph.cpp. CMakeLists.txt compiles those (and cudnn_frontend_symbols.cpp)
// only when it finds the frontend, cudnn.h and nvrtc.h; else the stubs
// no_cuda_cudnn_attention.cpp and no_cuda_cudnn_convolution_graph.cpp.
//
// Note [cuDNN's graph API]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Loading: cuDNN stays unlinked (Note [Loading cuDNN] in cudnn.cpp). The frontend calls the
// backend API's C functions (cudnnBackendCreateDescriptor, cudnnBackendExecute, ...) by name;
// cudnn_frontend_symbols.cpp defines those names, hidden inside genesis's module, each
// forwarding to the function of the same name in the libcudnn.so.9 that cudnn.cpp loaded. (The
// frontend's own dynamic-loading mode would also dlopen libcudart.so, which genesis, linked to
// the static CUDA runtime, does not have.)
// Visibility: the frontend's classes and functions stay inside genesis's module (PyTorch
// carries its own copy of the frontend, another version, which must not interpose on these).
// Every system and standard header the frontend includes comes first, outside the hidden
// region: a standard header read inside it has libstdc++'s templates instantiated hidden in
// genesis's module (std::ostream::_M_insert<long>, say), which crashed beside another library's
// libstdc++ state (PyTorch imported first).
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

#pragma GCC visibility push(hidden)
#include <cudnn.h>
#include <cudnn_frontend.h>
#include <nvrtc.h>
#pragma GCC visibility pop

#include "core/tensor.h"
#include "cuda/cudnn_api.h"
#include "cuda/runtime.h"

// The helpers below hold the frontend's (hidden) types, so they are hidden too.
#pragma GCC visibility push(hidden)
namespace genesis::cuda::cudnn {

// A problem's graph with its plan built, and the workspace its execution needs; a null graph:
// cuDNN refused the problem.
struct KeptGraph {
  std::shared_ptr<cudnn_frontend::graph::Graph> graph;
  int64_t workspace = 0;
};

// An empty graph for `device` (its architecture from genesis's own device query: the frontend
// would ask the CUDA runtime) with float16 (or, `bf16`, bfloat16) tensors computed in float.
inline std::shared_ptr<cudnn_frontend::graph::Graph> half_graph(int device, bool bf16) {
  namespace fe = cudnn_frontend;
  auto g = std::make_shared<fe::graph::Graph>();
  const DeviceProperties props = device_properties(device);
  g->set_sm_version(props.major * 10 + props.minor);
  g->set_io_data_type(bf16 ? fe::DataType_t::BFLOAT16 : fe::DataType_t::HALF)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  return g;
}

// Finishes a described graph: the operation graph, the engine cuDNN's heuristics (mode A) rank
// first among those that support it (leaving out engines with a note in `deselect`), its plan
// and workspace. A null graph when cuDNN refuses (or the frontend throws).
inline KeptGraph finish(std::shared_ptr<cudnn_frontend::graph::Graph> g, cudnnHandle_t handle,
                        const std::vector<cudnn_frontend::NumericalNote_t>& deselect = {}) {
  namespace fe = cudnn_frontend;
  KeptGraph kept;
  try {
    if (!g->validate().is_good() || !g->build_operation_graph(handle).is_good() ||
        !g->create_execution_plans({fe::HeurMode_t::A}).is_good())
      return {};
    if (!deselect.empty()) g->deselect_numeric_notes(deselect);
    if (!g->check_support(handle).is_good() ||
        !g->build_plans(handle, fe::BuildPlanPolicy_t::HEURISTICS_CHOICE).is_good() ||
        !g->get_workspace_size(kept.workspace).is_good())
      return {};
  } catch (const std::exception&) {
    return {};
  }
  kept.graph = std::move(g);
  return kept;
}

// Graphs by problem (a type with operator<), each built on first use and kept for the process,
// refusals included.
template <typename Problem>
class GraphCache {
 public:
  // p's graph, built by build(p) under the cache's lock the first time.
  template <typename Build>
  KeptGraph get(const Problem& p, const Build& build) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = graphs_.find(p);
    if (it == graphs_.end()) it = graphs_.emplace(p, build(p)).first;
    return it->second;
  }

  // (kept, refused) problems.
  std::pair<int64_t, int64_t> counts() {
    std::lock_guard<std::mutex> lock(mutex_);
    int64_t kept = 0;
    for (const auto& [problem, graph] : graphs_) kept += graph.graph != nullptr;
    return {kept, static_cast<int64_t>(graphs_.size()) - kept};
  }

 private:
  std::mutex mutex_;
  std::map<Problem, KeptGraph> graphs_;
};

// Runs a kept graph on handle (the device's, pointed at the current stream) with the tensors'
// addresses by uid and a workspace from the caching pool on `device`.
inline cudnn_frontend::error_t execute(const KeptGraph& kept, cudnnHandle_t handle,
                                       std::unordered_map<int64_t, void*>& pack, Device device) {
  Tensor workspace;
  if (kept.workspace > 0) workspace = Tensor::empty({kept.workspace}, ScalarType::UInt8, device);
  return kept.graph->execute(handle, pack,
                             workspace.defined() ? workspace.mutable_data() : nullptr);
}

}  // namespace genesis::cuda::cudnn
#pragma GCC visibility pop

// A CUDA group as one generated kernel (Note [Fused groups on CUDA] in cuda_source.cpp): the
// program for the group's structure is generated, compiled by NVRTC for the device's
// architecture (cached: Note [Kernel cache]; new ones on worker threads while the group runs op
// by op: Note [Building programs in the background]) and launched on the device's current stream
// with the inputs', results' and shape's values as arguments.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/errors.h"
#include "cuda/fused_kernels.h"
#include "fusion/background_builds.h"
#include "fusion/cuda_source.h"
#include "fusion/graph.h"
#include "fusion/kernel_cache.h"
#include "fusion/nvrtc.h"

namespace genesis::fusion {

namespace {

// A program's kernels: the group's, and a column group's partials kernel.
struct Kernels {
  void* main = nullptr;
  void* partials = nullptr;        // a thread a column
  void* partials_block = nullptr;  // a block a column
};

// Kernels by structure key and architecture (the process's; programs are never unloaded).
std::mutex g_kernels_mutex;
std::unordered_map<std::string, Kernels> g_kernels;

// A fingerprint of the headers every program includes (the functors' text): part of each key.
const std::string& headers_fingerprint() {
  static const std::string f = [] {
    uint64_t h = 1469598103934665603ULL;
    for (const auto& [name, text] : kernel_headers())
      for (unsigned char c : name + text) h = (h ^ c) * 1099511628211ULL;
    return std::to_string(h);
  }();
  return f;
}

// Appends the bytes of v to the argument block.
template <typename T>
void put(std::vector<char>& block, T v) {
  const char* p = reinterpret_cast<const char*>(&v);
  block.insert(block.end(), p, p + sizeof v);
}

template <typename Index>
void run_program(const Graph& graph, const Results& results, const KernelShape& shape,
                 const Kernels& kernels) {
  const int device = graph.device.index;
  std::vector<const void*> pointers;
  for (const Tensor& t : graph.inputs)
    pointers.push_back(static_cast<const char*>(t.storage().data()) +
                       t.storage_offset() * static_cast<int64_t>(t.itemsize()));
  for (size_t k = 0; k < graph.ops.size(); ++k)
    if (shape.written[k]) pointers.push_back(results.held[k]->result_data());
  std::vector<char> geo;
  bool strided = shape.any_strided();
  if (strided) {
    for (int64_t s : shape.geo_sizes) put<Index>(geo, static_cast<Index>(s));
    for (size_t i = 0; i < graph.inputs.size(); ++i)
      if (shape.strided[i])
        for (int64_t s : shape.geo_strides[i]) put<Index>(geo, static_cast<Index>(s));
  }
  // the vector program counts packs; a row program takes the rows and their items
  Index n = static_cast<Index>(graph.numel / shape.vector);
  Index rows = static_cast<Index>(graph.rows), row_size = static_cast<Index>(graph.row_size);
  std::vector<uint64_t> rng;  // each dropout mask's seed and offset (text::rng_params)
  for (const FusedOp& op : graph.ops)
    if (op.kind == OpKind::DropoutMask) rng.insert(rng.end(), {op.a_bits, op.b_bits});
  std::vector<void*> args;
  for (const void*& p : pointers) args.push_back(&p);
  for (uint64_t& v : rng) args.push_back(&v);
  if (strided) args.push_back(geo.data());
  static thread_local int sms_device = -1, sms = 0;
  if (sms_device != device) {
    sms = cuda::multiprocessors(device);
    sms_device = device;
  }
  if (graph.columns > 0) {  // Note [Fused column groups on CUDA]
    const ColumnChunks plan = column_chunks(graph.numel / graph.columns, graph.columns, sms);
    Index rows_total = static_cast<Index>(graph.numel / graph.columns);
    Index columns = static_cast<Index>(graph.columns);
    Index rows_each = static_cast<Index>(plan.rows_each), chunks = static_cast<Index>(plan.chunks);
    int64_t reductions = 0;
    for (size_t k = 0; k < graph.ops.size(); ++k)
      reductions += graph.ops[k].column && shape.written[k];
    DataPtr workspace;
    if (plan.chunks > 1 && reductions > 0)
      workspace = allocate_on_group_stream(
          graph, static_cast<size_t>(reductions * plan.chunks * graph.columns) * 8);
    void* slots = workspace.get();
    for (void* a :
         {static_cast<void*>(&rows_total), static_cast<void*>(&columns),
          static_cast<void*>(&rows_each), static_cast<void*>(&chunks), static_cast<void*>(&slots)})
      args.push_back(a);
    const auto blocks =
        static_cast<unsigned>((graph.columns + kColumnThreads - 1) / kColumnThreads);
    cuda::launch_fused(kernels.main, device, graph.stream, blocks, kColumnThreads, args.data(),
                       static_cast<unsigned>(plan.chunks));
    // eager's choice of final kernel (kernels/reduce_loops.cuh's run_reduce)
    if (workspace.get() && graph.columns <= 1024 && plan.chunks >= 64)
      cuda::launch_fused(kernels.partials_block, device, graph.stream,
                         static_cast<unsigned>(graph.columns), kColumnThreads, args.data());
    else if (workspace.get())
      cuda::launch_fused(kernels.partials, device, graph.stream, blocks, kColumnThreads,
                         args.data());
    return;
  }
  if (graph.rows > 0) {
    args.push_back(&rows);
    args.push_back(&row_size);
  } else {
    args.push_back(&n);
  }
  if (shape.row_items > 0) {  // Note [Warp rows]: row_warps warps a row, 8 a block, grid-stride
    const int64_t rows_per_block = kWarpRowsPerBlock / shape.row_warps;
    const int64_t blocks = std::min<int64_t>((graph.rows + rows_per_block - 1) / rows_per_block,
                                             static_cast<int64_t>(sms) * 16);
    cuda::launch_fused(kernels.main, device, graph.stream, static_cast<unsigned>(blocks),
                       32 * kWarpRowsPerBlock, args.data());
    return;
  }
  if (graph.rows > 0) {  // a block a row, the rows in a grid-stride loop
    const int threads = row_threads(graph.row_size);
    const int64_t blocks = std::min<int64_t>(graph.rows, static_cast<int64_t>(sms) * 32);
    cuda::launch_fused(kernels.main, device, graph.stream, static_cast<unsigned>(blocks),
                       static_cast<unsigned>(threads), args.data());
    return;
  }
  int64_t per_block = static_cast<int64_t>(kFusedThreads) * kFusedUnroll;
  int64_t blocks =
      std::min<int64_t>((graph.numel + per_block - 1) / per_block, static_cast<int64_t>(sms) * 16);
  cuda::launch_fused(kernels.main, device, graph.stream,
                     static_cast<unsigned>(std::max<int64_t>(blocks, 1)), kFusedThreads,
                     args.data());
}

// Whether the vector program can run: every address 16-byte aligned and the items a whole
// number of packs.
bool packs_fit(const Graph& graph, const Results& results, const KernelShape& shape) {
  const int v = vector_width(graph, shape);
  if (v <= 1 || graph.numel % v != 0) return false;
  auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  for (const Tensor& t : graph.inputs)
    if (!aligned(static_cast<const char*>(t.storage().data()) +
                 t.storage_offset() * static_cast<int64_t>(t.itemsize())))
      return false;
  for (size_t k = 0; k < graph.ops.size(); ++k)
    if (shape.written[k] && !aligned(results.held[k]->result_data())) return false;
  return true;
}

}  // namespace

void run_on_cuda(const Graph& graph, const Results& results) {
  std::vector<bool> written(graph.ops.size());
  bool any = false;
  for (size_t k = 0; k < graph.ops.size(); ++k) {
    written[k] = results.held[k] != nullptr;
    any = any || written[k];
  }
  if (!any) return;  // nobody holds a result: nothing to compute
  KernelShape shape = kernel_shape(graph, written);
  if (shape.rank > kFusedMaxRank || !generated_kernel_fits(graph) || !nvrtc_available())
    return run_eagerly(graph, results);
  shape.vector = packs_fit(graph, results, shape) ? vector_width(graph, shape) : 1;
  const int arch = cuda::device_architecture(graph.device.index);
  // A structure run before finds its kernel without generating the program's text again
  // (Note [Fused groups on CUDA]: structure_key names the same program as the text).
  std::string structure = structure_key(graph, shape);
  structure.append(reinterpret_cast<const char*>(&arch), sizeof arch);
  Kernels kernels;
  {
    std::lock_guard<std::mutex> lock(g_kernels_mutex);
    if (auto it = g_kernels.find(structure); it != g_kernels.end()) kernels = it->second;
  }
  if (!kernels.main) {
    try {
      KernelSource src = cuda_source(graph, shape);
      std::string key = str_cat("sm_", arch, ";nvrtc", nvrtc_version(), ";headers",
                                headers_fingerprint(), ";", src.text);
      // by value: a background build outlives this call
      auto build = [text = src.text, file = src.name + ".cu", arch] {
        return nvrtc_compile(text, file, kernel_headers(), arch);
      };
      std::string cubin;
      if (!background_builds())
        cubin = cached_cubin(key, build);
      else if (!cubin_or_start_build(key, build, cubin))
        return run_eagerly(graph, results);  // Note [Building programs in the background]
      kernels.main = cuda::fused_kernel(cubin, src.name);
      if (graph.columns > 0) {
        kernels.partials = cuda::fused_kernel(cubin, src.name + "_partials");
        kernels.partials_block = cuda::fused_kernel(cubin, src.name + "_partials_block");
      }
    } catch (const Error&) {
      return run_eagerly(graph, results);  // a program that cannot be built: the eager loops
    }
    std::lock_guard<std::mutex> lock(g_kernels_mutex);
    g_kernels.emplace(std::move(structure), kernels);
  }
  if (shape.index32)
    run_program<int>(graph, results, shape, kernels);
  else
    run_program<int64_t>(graph, results, shape, kernels);
}

}  // namespace genesis::fusion

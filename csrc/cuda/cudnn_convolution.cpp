// The three convolution passes through cuDNN (csrc/cuda/cudnn.h).
#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "core/errors.h"
#include "core/shape.h"
#include "cuda/cudnn.h"
#include "cuda/cudnn_api.h"
#include "cuda/cudnn_convolution_graph.h"

// Note [Convolutions through cuDNN]
// Each pass (forward, backward data, backward filter) is one legacy cuDNN call on contiguous
// NCHW (NCDHW) tensors or channels-last NHWC (NDHWC) ones (Note [Convolution layouts] in
// ops/convolution.cpp, which lifts a 1-D convolution to 2-D with a unit height).
//  - Math: float16 and bfloat16 run on tensor cores (CUDNN_TENSOR_OP_MATH) with float
//    accumulation; float32 uses TF32 tensor cores only when genesis.backends.cudnn.allow_tf32 is
//    set (CUDNN_FMA_MATH otherwise, and algorithms that need tensor-core math are skipped);
//    float64 computes in double.
//  - Algorithm: chosen once per pass, device, dtype, sizes, geometry and settings, and kept
//    (a process-wide map under a lock). By default from cuDNN's heuristics
//    (cudnnGet*Algorithm_v7, best first): the first that succeeds, is deterministic when
//    genesis.backends.cudnn.deterministic asks, and whose workspace the caching pool can give.
//    With genesis.backends.cudnn.benchmark, cuDNN times every algorithm on the first call
//    (cudnnFind*AlgorithmEx, writing the real output buffer, with the largest workspace any
//    heuristic candidate asked for) and the fastest that qualifies is kept: PyTorch's
//    torch.backends.cudnn.benchmark.
//  - Workspace: from genesis's caching pool on the current stream, per call.
//  - float16 and bfloat16 convolutions of one group try cuDNN's graph API first (Note
//    [Convolutions through cuDNN's graph API] in cudnn_convolution_graph.cpp).

namespace genesis::cuda {

namespace {

using namespace cudnn;

enum class Pass { Forward, BackwardData, BackwardFilter };

const char* pass_call(Pass p) {
  switch (p) {
    case Pass::Forward:
      return "cudnnConvolutionForward";
    case Pass::BackwardData:
      return "cudnnConvolutionBackwardData";
    case Pass::BackwardFilter:
      return "cudnnConvolutionBackwardFilter";
  }
  return "";
}

int data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return kHalf;
    case ScalarType::BFloat16:
      return kBFloat16;
    case ScalarType::Float64:
      return kDouble;
    default:
      return kFloat;
  }
}

// The three descriptors of one convolution, destroyed with it.
class Descriptors {
 public:
  Descriptors(const Api& a, const CudnnConvolution& c, const char* op) : a_(a) {
    check(a.create_tensor(&x), "cudnnCreateTensorDescriptor", op);
    check(a.create_tensor(&y), "cudnnCreateTensorDescriptor", op);
    check(a.create_filter(&w), "cudnnCreateFilterDescriptor", op);
    check(a.create_conv(&conv), "cudnnCreateConvolutionDescriptor", op);
    const int dt = data_type(c.dtype);
    set_tensor(x, dt, c.rank, c.x, c.channels_last, op);
    set_tensor(y, dt, c.rank, c.y, c.channels_last, op);
    check(a.set_filter(w, dt, c.channels_last ? kNhwc : kNchw, c.rank, c.w),
          "cudnnSetFilterNdDescriptor", op);
    // float16/bfloat16 accumulate in float, as PyTorch does
    const int compute = c.dtype == ScalarType::Float64 ? kDouble : kFloat;
    check(a.set_conv(conv, c.rank - 2, c.pad, c.stride, c.dilation, kCrossCorrelation, compute),
          "cudnnSetConvolutionNdDescriptor", op);
    check(a.set_group_count(conv, c.groups), "cudnnSetConvolutionGroupCount", op);
  }
  ~Descriptors() {
    a_.destroy_conv(conv);
    a_.destroy_filter(w);
    a_.destroy_tensor(y);
    a_.destroy_tensor(x);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  TensorDesc x = nullptr, y = nullptr;
  FilterDesc w = nullptr;
  ConvDesc conv = nullptr;

 private:
  // Contiguous or channels-last (N, C, *spatial) strides.
  void set_tensor(TensorDesc d, int dt, int rank, const int* dims, bool channels_last,
                  const char* op) {
    Shape sizes(dims, dims + rank);
    Shape laid = channels_last ? channels_last_strides(sizes) : contiguous_strides(sizes);
    int strides[5];
    for (int i = 0; i < rank; ++i) strides[i] = static_cast<int>(laid[i]);
    check(a_.set_tensor(d, dt, rank, dims, strides), "cudnnSetTensorNdDescriptor", op);
  }
  const Api& a_;
};

// The data pointers of one pass: x, w and y, the output among them written.
struct Buffers {
  void* x;
  void* w;
  void* y;
};

Status heuristics(const Api& a, Pass p, Handle h, const Descriptors& d, int n, int* count,
                  AlgoPerf* perf) {
  switch (p) {
    case Pass::Forward:
      return a.forward_heuristics(h, d.x, d.w, d.conv, d.y, n, count, perf);
    case Pass::BackwardData:
      return a.data_heuristics(h, d.w, d.y, d.conv, d.x, n, count, perf);
    case Pass::BackwardFilter:
      return a.filter_heuristics(h, d.x, d.y, d.conv, d.w, n, count, perf);
  }
  return kSuccess;
}

Status find(const Api& a, Pass p, Handle h, const Descriptors& d, const Buffers& b, int n,
            int* count, AlgoPerf* perf, void* ws, size_t bytes) {
  switch (p) {
    case Pass::Forward:
      return a.forward_find(h, d.x, b.x, d.w, b.w, d.conv, d.y, b.y, n, count, perf, ws, bytes);
    case Pass::BackwardData:
      return a.data_find(h, d.w, b.w, d.y, b.y, d.conv, d.x, b.x, n, count, perf, ws, bytes);
    case Pass::BackwardFilter:
      return a.filter_find(h, d.x, b.x, d.y, b.y, d.conv, d.w, b.w, n, count, perf, ws, bytes);
  }
  return kSuccess;
}

Status workspace_size(const Api& a, Pass p, Handle h, const Descriptors& d, int algo,
                      size_t* bytes) {
  switch (p) {
    case Pass::Forward:
      return a.forward_workspace(h, d.x, d.w, d.conv, d.y, algo, bytes);
    case Pass::BackwardData:
      return a.data_workspace(h, d.w, d.y, d.conv, d.x, algo, bytes);
    case Pass::BackwardFilter:
      return a.filter_workspace(h, d.x, d.y, d.conv, d.w, algo, bytes);
  }
  return kSuccess;
}

Status execute(const Api& a, Pass p, Handle h, const Descriptors& d, const Buffers& b, int algo,
               void* ws, size_t bytes, const void* one, const void* zero) {
  switch (p) {
    case Pass::Forward:
      return a.forward(h, one, d.x, b.x, d.w, b.w, d.conv, algo, ws, bytes, zero, d.y, b.y);
    case Pass::BackwardData:
      return a.backward_data(h, one, d.w, b.w, d.y, b.y, d.conv, algo, ws, bytes, zero, d.x, b.x);
    case Pass::BackwardFilter:
      return a.backward_filter(h, one, d.x, b.x, d.y, b.y, d.conv, algo, ws, bytes, zero, d.w, b.w);
  }
  return kSuccess;
}

struct Choice {
  int algo = 0;
  int math_type = kDefaultMath;
  size_t workspace = 0;
};

std::vector<int64_t> cache_key(Pass p, int device, const CudnnConvolution& c) {
  std::vector<int64_t> key{static_cast<int64_t>(p), device, static_cast<int64_t>(c.dtype)};
  key.insert(key.end(),
             {c.rank, c.groups, c.benchmark, c.deterministic, c.allow_tf32, c.channels_last});
  for (int i = 0; i < c.rank; ++i) key.insert(key.end(), {c.x[i], c.w[i], c.y[i]});
  for (int i = 0; i < c.rank - 2; ++i)
    key.insert(key.end(), {c.pad[i], c.stride[i], c.dilation[i]});
  return key;
}

std::mutex g_cache_mutex;
std::map<std::vector<int64_t>, Choice> g_cache;

// Whether a candidate's math is allowed, and the math type to set for it.
bool math_allowed(const CudnnConvolution& c, const AlgoPerf& perf, int* math_type) {
  if (c.dtype == ScalarType::Float32 && !c.allow_tf32) {
    if (perf.math_type == kTensorOpMath || perf.math_type == kTensorOpMathAllowConversion)
      return false;
    *math_type = kFmaMath;
    return true;
  }
  *math_type = perf.math_type;
  return true;
}

// A workspace of `bytes` from the caching pool, or an empty tensor when the pool cannot give it
// (the caller then tries a leaner algorithm).
Tensor try_workspace(size_t bytes, Device device, bool* ok) {
  *ok = true;
  if (bytes == 0) return Tensor();
  try {
    return Tensor::empty({static_cast<int64_t>(bytes)}, ScalarType::UInt8, device);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::OutOfMemory) throw;
    *ok = false;
    return Tensor();
  }
}

constexpr int kMaxAlgorithms = 16;

Choice choose(const Api& a, Pass p, Handle h, const Descriptors& d, const CudnnConvolution& c,
              const Buffers& b, Device device, const char* op) {
  AlgoPerf perf[kMaxAlgorithms] = {};
  int count = 0;
  check(a.set_math_type(d.conv, c.dtype == ScalarType::Float32 && !c.allow_tf32 ? kFmaMath
                                : c.dtype == ScalarType::Float16 || c.dtype == ScalarType::BFloat16
                                    ? kTensorOpMath
                                    : kDefaultMath),
        "cudnnSetConvolutionMathType", op);
  check(heuristics(a, p, h, d, kMaxAlgorithms, &count, perf), "cuDNN's algorithm heuristics", op);
  std::vector<Choice> candidates;
  for (int i = 0; i < count; ++i) {
    const AlgoPerf& q = perf[i];
    Choice choice{q.algo, kDefaultMath, 0};
    if (q.status != kSuccess || (c.deterministic && q.determinism != kDeterministic) ||
        !math_allowed(c, q, &choice.math_type))
      continue;
    if (a.set_math_type(d.conv, choice.math_type) != kSuccess ||
        workspace_size(a, p, h, d, q.algo, &choice.workspace) != kSuccess)
      continue;
    candidates.push_back(choice);
  }
  GENESIS_CHECK(!candidates.empty(), op, "cuDNN has no ", pass_call(p), " algorithm for this ",
                c.rank - 2, "-d convolution of ", scalar_type_name(c.dtype),
                c.deterministic ? " that is deterministic" : "");
  if (c.benchmark) {
    size_t largest = 0;
    for (const Choice& ch : candidates) largest = std::max(largest, ch.workspace);
    bool ok = false;
    Tensor ws = try_workspace(largest, device, &ok);
    if (ok) {
      check(a.set_math_type(d.conv, candidates.front().math_type), "cudnnSetConvolutionMathType",
            op);
      AlgoPerf timed[kMaxAlgorithms] = {};
      int timed_count = 0;
      check(find(a, p, h, d, b, kMaxAlgorithms, &timed_count, timed,
                 ws.defined() ? ws.mutable_data() : nullptr, largest),
            "cuDNN's algorithm search", op);
      for (int i = 0; i < timed_count; ++i) {  // fastest first
        const AlgoPerf& q = timed[i];
        Choice choice{q.algo, kDefaultMath, 0};
        if (q.status != kSuccess || (c.deterministic && q.determinism != kDeterministic) ||
            !math_allowed(c, q, &choice.math_type))
          continue;
        if (a.set_math_type(d.conv, choice.math_type) != kSuccess ||
            workspace_size(a, p, h, d, q.algo, &choice.workspace) != kSuccess ||
            choice.workspace > largest)
          continue;
        return choice;
      }
    }
  }
  for (const Choice& ch : candidates) {
    bool ok = false;
    Tensor ws = try_workspace(ch.workspace, device, &ok);
    if (ok) return ch;
  }
  GENESIS_FAIL(ErrorKind::OutOfMemory, op, "out of memory for every cuDNN ", pass_call(p),
               " algorithm's workspace (the smallest needs ", candidates.back().workspace,
               " bytes)");
}

void run(Pass p, const CudnnConvolution& c, const Buffers& b, Device device, const char* op) {
  const Api& a = api(op);
  Session session(device.index, op);
  Descriptors d(a, c, op);
  const auto key = cache_key(p, device.index, c);
  Choice choice;
  bool cached = false;
  {
    std::lock_guard<std::mutex> lock(g_cache_mutex);
    auto it = g_cache.find(key);
    if (it != g_cache.end()) {
      choice = it->second;
      cached = true;
    }
  }
  if (!cached) {
    choice = choose(a, p, session.handle(), d, c, b, device, op);
    std::lock_guard<std::mutex> lock(g_cache_mutex);
    g_cache.emplace(key, choice);
  }
  check(a.set_math_type(d.conv, choice.math_type), "cudnnSetConvolutionMathType", op);
  Tensor ws;
  if (choice.workspace > 0)
    ws = Tensor::empty({static_cast<int64_t>(choice.workspace)}, ScalarType::UInt8, device);
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const bool dbl = c.dtype == ScalarType::Float64;  // the scaling factors' type follows compute
  check(
      execute(a, p, session.handle(), d, b, choice.algo, ws.defined() ? ws.mutable_data() : nullptr,
              choice.workspace, dbl ? static_cast<const void*>(&one_d) : &one_f,
              dbl ? static_cast<const void*>(&zero_d) : &zero_f),
      pass_call(p), op);
}

}  // namespace

void cudnn_convolution_forward(const CudnnConvolution& c, const Tensor& x, const Tensor& w,
                               const Tensor& y, const char* op) {
  if (cudnn_graph_convolution(ConvolutionPass::Forward, c, x, w, y, op)) return;
  run(Pass::Forward, c,
      {const_cast<void*>(x.data()), const_cast<void*>(w.data()), y.mutable_data()}, y.device(), op);
}

void cudnn_convolution_backward_data(const CudnnConvolution& c, const Tensor& dy, const Tensor& w,
                                     const Tensor& dx, const char* op) {
  if (cudnn_graph_convolution(ConvolutionPass::BackwardData, c, dy, w, dx, op)) return;
  run(Pass::BackwardData, c,
      {dx.mutable_data(), const_cast<void*>(w.data()), const_cast<void*>(dy.data())}, dx.device(),
      op);
}

void cudnn_convolution_backward_filter(const CudnnConvolution& c, const Tensor& x, const Tensor& dy,
                                       const Tensor& dw, const char* op) {
  if (cudnn_graph_convolution(ConvolutionPass::BackwardFilter, c, x, dy, dw, op)) return;
  run(Pass::BackwardFilter, c,
      {const_cast<void*>(x.data()), dw.mutable_data(), const_cast<void*>(dy.data())}, dw.device(),
      op);
}

}  // namespace genesis::cuda

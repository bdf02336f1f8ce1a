// Loading cuDNN and its per-device handles (csrc/cuda/cudnn.h, cudnn_api.h).
#include "cuda/cudnn.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "cuda/cudnn_api.h"
#include "cuda/library_path.h"
#include "cuda/stream.h"
#include "vocab/limits.h"

#if __has_include(<cudnn.h>)
#include <cudnn.h>
#define GENESIS_HAVE_CUDNN_HEADER 1
#endif

// Note [Loading cuDNN]
// As cuBLAS (Note [Loading cuBLAS] in blas.cpp), cuDNN is never linked: it is large, optional,
// and shipped apart from the toolkit (the nvidia-cudnn-cu13 wheel, or a system package). The
// first convolution that could use it dlopen()s libcudnn.so.9, trying $GENESIS_CUDNN_PATH, the
// loader's own search (which also finds a copy another library, PyTorch say, has loaded), the
// directories genesis.backends.cudnn found in the Python environment (site-packages'
// nvidia/cudnn/lib), and the toolkit under $CUDA_HOME and /usr/local/cuda. libcudnn.so.9 is a
// small front that loads its sub-libraries (cnn, ops, engines) from its own directory.
// Only the legacy convolution API is used (cudnnConvolutionForward and its two backward
// passes, with the v7 heuristics and the Find calls): present in every cuDNN 9, and enough for
// every convolution genesis.nn has. A machine without cuDNN keeps working: cudnn_available()
// answers false and the convolutions use genesis's own path (genesis.nn.functional's _conv.py).
// One handle per device, created on first use and never destroyed (at exit the CUDA context
// may be gone), used under its lock and pointed at the current stream for each call.

namespace genesis::cuda {

namespace cudnn {

#ifdef GENESIS_HAVE_CUDNN_HEADER
static_assert(CUDNN_STATUS_SUCCESS == kSuccess && CUDNN_DATA_FLOAT == kFloat &&
              CUDNN_DATA_DOUBLE == kDouble && CUDNN_DATA_HALF == kHalf &&
              CUDNN_DATA_BFLOAT16 == kBFloat16 && CUDNN_TENSOR_NCHW == kNchw &&
              CUDNN_TENSOR_NHWC == kNhwc && CUDNN_CROSS_CORRELATION == kCrossCorrelation);
static_assert(CUDNN_DEFAULT_MATH == kDefaultMath && CUDNN_TENSOR_OP_MATH == kTensorOpMath &&
              CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION == kTensorOpMathAllowConversion &&
              CUDNN_FMA_MATH == kFmaMath && CUDNN_DETERMINISTIC == kDeterministic);
static_assert(sizeof(cudnnConvolutionFwdAlgoPerf_t) == sizeof(AlgoPerf) &&
              sizeof(cudnnConvolutionBwdDataAlgoPerf_t) == sizeof(AlgoPerf) &&
              sizeof(cudnnConvolutionBwdFilterAlgoPerf_t) == sizeof(AlgoPerf));
#endif

namespace {

std::mutex g_dirs_mutex;
std::vector<std::string> g_search_dirs;

template <typename Fn>
bool find(void* lib, const char* name, Fn* fn, std::string& missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!*fn && missing.empty()) missing = name;
  return *fn != nullptr;
}

struct Loaded {
  Api api;
  void* library = nullptr;  // the dlopen() handle (kept open for the process)
  std::string error;        // why it could not be loaded; empty when loaded
};

Loaded load() {
  std::vector<std::string> names = library_candidates("GENESIS_CUDNN_PATH", "libcudnn.so", {"9"});
  {
    // after the env var and the loader's sonames, before the toolkit's directories
    std::lock_guard<std::mutex> lock(g_dirs_mutex);
    auto bare = std::find(names.begin(), names.end(), std::string("libcudnn.so"));
    auto at = bare == names.end() ? names.end() : bare + 1;
    for (const std::string& dir : g_search_dirs) at = names.insert(at, dir + "/libcudnn.so.9") + 1;
  }
  void* lib = nullptr;
  std::string first_error, tried;
  for (const std::string& name : names) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* err = dlerror();
    if (first_error.empty()) first_error = err ? err : name;
    tried += tried.empty() ? name : ", " + name;
  }
  Loaded out{};
  if (!lib) {
    out.error = str_cat("cuDNN could not be loaded: ", first_error, " (tried ", tried,
                        "; install nvidia-cudnn-cu13 or set GENESIS_CUDNN_PATH to libcudnn.so.9)");
    return out;
  }
  out.library = lib;
  Api& a = out.api;
  std::string missing;
  size_t (*get_version)() = nullptr;
  find(lib, "cudnnGetVersion", &get_version, missing);
  find(lib, "cudnnGetErrorString", &a.error_string, missing);
  find(lib, "cudnnCreate", &a.create, missing);
  find(lib, "cudnnSetStream", &a.set_stream, missing);
  find(lib, "cudnnCreateTensorDescriptor", &a.create_tensor, missing);
  find(lib, "cudnnDestroyTensorDescriptor", &a.destroy_tensor, missing);
  find(lib, "cudnnSetTensorNdDescriptor", &a.set_tensor, missing);
  find(lib, "cudnnCreateFilterDescriptor", &a.create_filter, missing);
  find(lib, "cudnnDestroyFilterDescriptor", &a.destroy_filter, missing);
  find(lib, "cudnnSetFilterNdDescriptor", &a.set_filter, missing);
  find(lib, "cudnnCreateConvolutionDescriptor", &a.create_conv, missing);
  find(lib, "cudnnDestroyConvolutionDescriptor", &a.destroy_conv, missing);
  find(lib, "cudnnSetConvolutionNdDescriptor", &a.set_conv, missing);
  find(lib, "cudnnSetConvolutionGroupCount", &a.set_group_count, missing);
  find(lib, "cudnnSetConvolutionMathType", &a.set_math_type, missing);
  find(lib, "cudnnGetConvolutionForwardAlgorithm_v7", &a.forward_heuristics, missing);
  find(lib, "cudnnFindConvolutionForwardAlgorithmEx", &a.forward_find, missing);
  find(lib, "cudnnGetConvolutionForwardWorkspaceSize", &a.forward_workspace, missing);
  find(lib, "cudnnConvolutionForward", &a.forward, missing);
  find(lib, "cudnnGetConvolutionBackwardDataAlgorithm_v7", &a.data_heuristics, missing);
  find(lib, "cudnnFindConvolutionBackwardDataAlgorithmEx", &a.data_find, missing);
  find(lib, "cudnnGetConvolutionBackwardDataWorkspaceSize", &a.data_workspace, missing);
  find(lib, "cudnnConvolutionBackwardData", &a.backward_data, missing);
  find(lib, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", &a.filter_heuristics, missing);
  find(lib, "cudnnFindConvolutionBackwardFilterAlgorithmEx", &a.filter_find, missing);
  find(lib, "cudnnGetConvolutionBackwardFilterWorkspaceSize", &a.filter_workspace, missing);
  find(lib, "cudnnConvolutionBackwardFilter", &a.backward_filter, missing);
  if (!missing.empty()) {
    out.error = str_cat("cuDNN could not be loaded: ", missing, " is missing from the library");
    return out;
  }
  a.version = static_cast<int64_t>(get_version());
  if (a.version < 90000)
    out.error = str_cat("cuDNN ", a.version, " is too old (genesis needs cuDNN 9)");
  return out;
}

// Loaded once, on first use; the outcome (library or error) is kept.
const Loaded& loaded() {
  static const Loaded once = load();
  return once;
}

}  // namespace

const Api& api(const char* op) {
  const Loaded& l = loaded();
  GENESIS_CHECK(l.error.empty(), op, l.error);
  return l.api;
}

void* library(const char* op) {
  api(op);
  return loaded().library;
}

void check(Status s, const char* call, const char* op) {
  if (s == kSuccess) [[likely]]
    return;
  const char* text = loaded().api.error_string ? loaded().api.error_string(s) : "unknown";
  GENESIS_FAIL(ErrorKind::Runtime, op, call, " failed: ", text ? text : "unknown", " (", s, ")");
}

namespace {

struct DeviceHandle {
  std::mutex mutex;
  Handle handle = nullptr;
};

DeviceHandle& device_handle(int device, const char* op) {
  static std::array<DeviceHandle, kMaxCudaDevices> handles;
  GENESIS_CHECK(device >= 0 && device < kMaxCudaDevices, op, "device index ", device,
                " is out of range");
  return handles[device];
}

}  // namespace

Session::Session(int device, const char* op) : guard_(device) {
  const Api& a = api(op);
  DeviceHandle& dh = device_handle(device, op);
  lock_ = std::unique_lock<std::mutex>(dh.mutex);
  if (!dh.handle) check(a.create(&dh.handle), "cudnnCreate", op);
  handle_ = dh.handle;
  check(a.set_stream(handle_, reinterpret_cast<cudaStream_t>(current_stream(device))),
        "cudnnSetStream", op);
}

}  // namespace cudnn

bool cudnn_available() { return cudnn::loaded().error.empty(); }

int64_t cudnn_version() {
  const auto& l = cudnn::loaded();
  return l.error.empty() ? l.api.version : 0;
}

void set_cudnn_search_dirs(std::vector<std::string> dirs) {
  std::lock_guard<std::mutex> lock(cudnn::g_dirs_mutex);
  cudnn::g_search_dirs = std::move(dirs);
}

}  // namespace genesis::cuda

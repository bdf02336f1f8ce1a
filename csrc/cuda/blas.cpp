// Matrix products through cuBLAS (csrc/cuda/blas.h).
#include "cuda/blas.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <library_types.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/copy.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"

#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>
#define GENESIS_HAVE_CUBLAS_HEADER 1
#endif

// Note [Loading cuBLAS]
// genesis does not link cuBLAS: a machine without the CUDA libraries must still import it, and a
// CPU-only user should not pay for a very large library. The first CUDA matmul dlopen()s it
// ($GENESIS_CUBLAS_PATH first, then the CUDA 13 and 12 sonames, then the toolkit under
// $CUDA_HOME and /usr/local/cuda) and looks up the few functions below. Their types and
// constants are written here from the cuBLAS documentation (enums are ints in the C ABI), so the
// build needs no cuBLAS headers either; where the headers exist, static_asserts check them.
//
// One handle per device, never destroyed (at exit the CUDA context may already be gone). Each
// call takes the handle's lock, points it at the current stream and at a workspace taken from
// the caching pool on that stream: the pool's stream-ordered reuse keeps concurrent streams from
// sharing a workspace, which one library-owned workspace per handle would not.

namespace genesis::cuda {

namespace {

using BlasHandle = struct BlasContext*;  // cublasHandle_t
using BlasStatus = int;                  // cublasStatus_t
constexpr BlasStatus kSuccess = 0;
constexpr int kOpN = 0, kOpT = 1;                  // cublasOperation_t
constexpr int kDefaultMath = 0;                    // cublasMath_t: no TF32 for float32
constexpr int kCompute32F = 68, kCompute64F = 70;  // cublasComputeType_t
constexpr int kGemmDefault = -1;                   // cublasGemmAlgo_t
// The workspace PyTorch gives cuBLAS on Hopper; smaller ones rule out some split-K kernels.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

#ifdef GENESIS_HAVE_CUBLAS_HEADER
static_assert(CUBLAS_STATUS_SUCCESS == kSuccess && CUBLAS_OP_N == kOpN && CUBLAS_OP_T == kOpT);
static_assert(CUBLAS_DEFAULT_MATH == kDefaultMath && CUBLAS_GEMM_DEFAULT == kGemmDefault);
static_assert(CUBLAS_COMPUTE_32F == kCompute32F && CUBLAS_COMPUTE_64F == kCompute64F);
#endif

struct Api {
  BlasStatus (*create)(BlasHandle*);
  BlasStatus (*set_stream)(BlasHandle, cudaStream_t);
  BlasStatus (*set_math_mode)(BlasHandle, int);
  BlasStatus (*set_workspace)(BlasHandle, void*, size_t);
  BlasStatus (*gemm)(BlasHandle, int, int, int, int, int, const void*, const void*, cudaDataType,
                     int, const void*, cudaDataType, int, const void*, void*, cudaDataType, int,
                     int, int);
  BlasStatus (*gemm_batched)(BlasHandle, int, int, int, int, int, const void*, const void*,
                             cudaDataType, int, long long, const void*, cudaDataType, int,
                             long long, const void*, void*, cudaDataType, int, long long, int, int,
                             int);
  const char* (*status_string)(BlasStatus);  // optional: a description of a status
};

std::vector<std::string> library_candidates() {
  std::vector<std::string> names;
  if (const char* path = std::getenv("GENESIS_CUBLAS_PATH"); path && *path) names.push_back(path);
  for (const char* soname : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
    names.push_back(soname);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* home = std::getenv(var);
    if (!home || !*home) continue;
    for (const char* suffix : {".13", ".12", ""})
      names.push_back(str_cat(home, "/lib64/libcublas.so", suffix));
  }
  names.push_back("/usr/local/cuda/lib64/libcublas.so.13");
  names.push_back("/usr/local/cuda/lib64/libcublas.so.12");
  return names;
}

template <typename Fn>
void find_symbol(void* lib, const char* name, Fn* fn, bool required) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!*fn && required) {
    const char* err = dlerror();
    GENESIS_FAIL(ErrorKind::Runtime, "matmul", "cuBLAS could not be loaded: ", err ? err : name);
  }
}

Api load_api() {
  void* lib = nullptr;
  std::string first_error, tried;
  for (const std::string& name : library_candidates()) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* err = dlerror();
    if (first_error.empty()) first_error = err ? err : name;
    tried += tried.empty() ? name : ", " + name;
  }
  GENESIS_CHECK(lib != nullptr, "matmul", "cuBLAS could not be loaded: ", first_error, " (tried ",
                tried,
                "; install the CUDA toolkit's cuBLAS or set GENESIS_CUBLAS_PATH to the library)");
  Api api{};
  find_symbol(lib, "cublasCreate_v2", &api.create, true);
  find_symbol(lib, "cublasSetStream_v2", &api.set_stream, true);
  find_symbol(lib, "cublasSetMathMode", &api.set_math_mode, true);
  find_symbol(lib, "cublasSetWorkspace_v2", &api.set_workspace, true);
  find_symbol(lib, "cublasGemmEx", &api.gemm, true);
  find_symbol(lib, "cublasGemmStridedBatchedEx", &api.gemm_batched, true);
  find_symbol(lib, "cublasGetStatusString", &api.status_string, false);
  return api;
}

// Loaded once; a failed load raises and is tried again on the next call.
const Api& api() {
  static const Api loaded = load_api();
  return loaded;
}

const char* status_name(BlasStatus s) {
  switch (s) {
    case 0:
      return "CUBLAS_STATUS_SUCCESS";
    case 1:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case 8:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16:
      return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

void check_status(BlasStatus s, const char* call) {
  if (s == kSuccess) [[likely]]
    return;
  const char* detail = api().status_string ? api().status_string(s) : nullptr;
  GENESIS_FAIL(ErrorKind::Runtime, "matmul", call, " failed: ", status_name(s), " (", s, ")",
               detail ? str_cat(": ", detail) : std::string());
}

struct DeviceHandle {
  std::mutex mutex;
  BlasHandle handle = nullptr;
};

DeviceHandle& device_handle(int device) {
  static std::array<DeviceHandle, kMaxCudaDevices> handles;
  GENESIS_CHECK(device >= 0 && device < kMaxCudaDevices, "matmul", "device index ", device,
                " is out of range");
  return handles[device];
}

// How cuBLAS reads the (batch, rows, cols) matrices of an operand: row-major (unit column
// stride) or column-major (unit row stride), a leading dimension and a batch stride.
struct Operand {
  const void* data = nullptr;
  bool col_major = false;
  int64_t ld = 0;
  int64_t batch_stride = 0;
  Tensor keep;  // a dense copy, when the layout needed one
};

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

Operand operand(const Tensor& t) {
  const int64_t batch = t.sizes()[0], r = t.sizes()[1], c = t.sizes()[2];
  const int64_t sb = batch == 1 ? 0 : t.strides()[0], sr = t.strides()[1], sc = t.strides()[2];
  Operand op;
  op.data = t.data();
  op.batch_stride = sb;
  if ((c == 1 || sc == 1) && (r == 1 || sr >= c)) {
    op.ld = r == 1 ? c : sr;
  } else if ((r == 1 || sr == 1) && (c == 1 || sc >= r)) {
    op.col_major = true;
    op.ld = c == 1 ? r : sc;
  } else {
    op.ld = -1;  // neither: copy below
  }
  if (sb >= 0 && fits_int(op.ld)) return op;
  // Make the matrices row-major; a broadcast batch is copied once and stays broadcast.
  bool broadcast = sb == 0;
  Tensor src = broadcast ? t.as_strided({1, r, c}, {0, sr, sc}, t.storage_offset()) : t;
  op.keep = Tensor::empty(src.sizes(), t.dtype(), t.device());
  copy(op.keep, src);
  op.data = op.keep.data();
  op.col_major = false;
  op.ld = c;
  op.batch_stride = broadcast ? 0 : r * c;
  return op;
}

cudaDataType data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return CUDA_R_16F;
    case ScalarType::BFloat16:
      return CUDA_R_16BF;
    case ScalarType::Float32:
      return CUDA_R_32F;
    case ScalarType::Float64:
      return CUDA_R_64F;
    default:
      break;
  }
  GENESIS_FAIL(ErrorKind::Type, "matmul", "cuBLAS does not multiply ", scalar_type_name(t),
               " tensors");
}

}  // namespace

void gemm_strided_batched(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t batch = out.sizes()[0], m = out.sizes()[1], n = out.sizes()[2], k = a.sizes()[2];
  if (out.numel() == 0) return;
  const cudaDataType type = data_type(out.dtype());
  GENESIS_CHECK(fits_int(m) && fits_int(n) && fits_int(k), "matmul",
                "cuBLAS takes matrix sizes up to 2^31 - 1, got m=", m, ", n=", n, ", k=", k);
  const int device = out.device().index;
  DeviceGuard guard(device);
  const Api& blas = api();
  Operand oa = operand(a), ob = operand(b);
  // Row-major C (m x n) is column-major C^T (n x m) = B^T A^T: cuBLAS's first operand is our b,
  // its second our a. A row-major matrix read column-major is already the transpose (op N).
  const int trans_b = ob.col_major ? kOpT : kOpN, trans_a = oa.col_major ? kOpT : kOpN;
  const bool f64 = out.dtype() == ScalarType::Float64;
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const void* alpha = f64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = f64 ? static_cast<const void*>(&zero_d) : &zero_f;
  const int compute = f64 ? kCompute64F : kCompute32F;
  const StreamId stream = current_stream(device);
  Tensor workspace =
      Tensor::empty({static_cast<int64_t>(kWorkspaceBytes)}, ScalarType::UInt8, out.device());

  DeviceHandle& dh = device_handle(device);
  std::lock_guard<std::mutex> lock(dh.mutex);
  if (!dh.handle) {
    BlasHandle h = nullptr;
    check_status(blas.create(&h), "cublasCreate");
    check_status(blas.set_math_mode(h, kDefaultMath), "cublasSetMathMode");
    dh.handle = h;
  }
  check_status(blas.set_stream(dh.handle, reinterpret_cast<cudaStream_t>(stream)),
               "cublasSetStream");
  check_status(blas.set_workspace(dh.handle, workspace.mutable_data(), kWorkspaceBytes),
               "cublasSetWorkspace");
  char* c = static_cast<char*>(out.mutable_data());
  if (batch == 1) {
    check_status(blas.gemm(dh.handle, trans_b, trans_a, static_cast<int>(n), static_cast<int>(m),
                           static_cast<int>(k), alpha, ob.data, type, static_cast<int>(ob.ld),
                           oa.data, type, static_cast<int>(oa.ld), beta, c, type,
                           static_cast<int>(n), compute, kGemmDefault),
                 "cublasGemmEx");
    return;
  }
  // batchCount is an int: larger batches go in chunks.
  const int64_t item = static_cast<int64_t>(out.itemsize());
  for (int64_t first = 0; first < batch; first += INT_MAX) {
    int count = static_cast<int>(std::min<int64_t>(INT_MAX, batch - first));
    const char* pa = static_cast<const char*>(oa.data) + first * oa.batch_stride * item;
    const char* pb = static_cast<const char*>(ob.data) + first * ob.batch_stride * item;
    check_status(
        blas.gemm_batched(dh.handle, trans_b, trans_a, static_cast<int>(n), static_cast<int>(m),
                          static_cast<int>(k), alpha, pb, type, static_cast<int>(ob.ld),
                          ob.batch_stride, pa, type, static_cast<int>(oa.ld), oa.batch_stride, beta,
                          c + first * m * n * item, type, static_cast<int>(n), m * n, count,
                          compute, kGemmDefault),
        "cublasGemmStridedBatchedEx");
  }
}

}  // namespace genesis::cuda

// Matrix products through cuBLAS (csrc/cuda/blas.h).
#include "cuda/blas.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <library_types.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "core/errors.h"
#include "cuda/blas_lt.h"
#include "cuda/check.h"
#include "cuda/copy.h"
#include "cuda/device_guard.h"
#include "cuda/library_path.h"
#include "cuda/stream.h"

#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>
#define GENESIS_HAVE_CUBLAS_HEADER 1
#endif

// Note [Loading cuBLAS]
// genesis does not link cuBLAS: a machine without the CUDA libraries must still import it, and a
// CPU-only user should not pay for a very large library. The first CUDA matmul (or batched LU,
// Note [Batched small matrices] in csrc/cuda/solver.cpp) dlopen()s it ($GENESIS_CUBLAS_PATH
// first, then the CUDA 13 and 12 sonames, then the toolkit under $CUDA_HOME and /usr/local/cuda)
// and looks up the few functions below, the LU ones optional until used. Their types and
// constants are written here from the cuBLAS documentation (enums are ints in the C ABI), so the
// build needs no cuBLAS headers either; where the headers exist, static_asserts check them.
//
// Products of float16, bfloat16 and float32 go to cuBLASLt first (Note [cuBLASLt matmul] in
// blas_lt.cpp, loaded the same way); this is where they go when it declines.
//
// One handle per device, never destroyed (at exit the CUDA context may already be gone), shared
// by matmul and the LU routines. Each call (a Session) takes the handle's lock, points it at the
// current stream and at a workspace taken from
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
constexpr int kCompute32FFastTF32 = 77;            // TF32 tensor cores for float32
constexpr int kGemmDefault = -1;                   // cublasGemmAlgo_t
// The workspace PyTorch gives cuBLAS on Hopper; smaller ones rule out some split-K kernels.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

#ifdef GENESIS_HAVE_CUBLAS_HEADER
static_assert(CUBLAS_STATUS_SUCCESS == kSuccess && CUBLAS_OP_N == kOpN && CUBLAS_OP_T == kOpT);
static_assert(CUBLAS_DEFAULT_MATH == kDefaultMath && CUBLAS_GEMM_DEFAULT == kGemmDefault);
static_assert(CUBLAS_COMPUTE_32F == kCompute32F && CUBLAS_COMPUTE_64F == kCompute64F);
static_assert(CUBLAS_COMPUTE_32F_FAST_TF32 == kCompute32FFastTF32);
#endif

std::atomic<bool> g_allow_tf32{false}, g_prefer_lt{true};

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
  // Optional until used: the batched LU of Note [Batched small matrices] (csrc/cuda/solver.cpp).
  BlasStatus (*sgetrf_batched)(BlasHandle, int, float* const*, int, int*, int*, int);
  BlasStatus (*dgetrf_batched)(BlasHandle, int, double* const*, int, int*, int*, int);
  BlasStatus (*sgetrs_batched)(BlasHandle, int, int, int, const float* const*, int, const int*,
                               float* const*, int, int*, int);
  BlasStatus (*dgetrs_batched)(BlasHandle, int, int, int, const double* const*, int, const int*,
                               double* const*, int, int*, int);
};

template <typename Fn>
void find_symbol(void* lib, const char* name, Fn* fn, bool required, const char* op) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!*fn && required) {
    const char* err = dlerror();
    GENESIS_FAIL(ErrorKind::Runtime, op, "cuBLAS could not be loaded: ", err ? err : name);
  }
}

Api load_api(const char* op) {
  void* lib = nullptr;
  std::string first_error, tried;
  for (const std::string& name :
       library_candidates("GENESIS_CUBLAS_PATH", "libcublas.so", {"13", "12"})) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* err = dlerror();
    if (first_error.empty()) first_error = err ? err : name;
    tried += tried.empty() ? name : ", " + name;
  }
  GENESIS_CHECK(lib != nullptr, op, "cuBLAS could not be loaded: ", first_error, " (tried ", tried,
                "; install the CUDA toolkit's cuBLAS or set GENESIS_CUBLAS_PATH to the library)");
  Api api{};
  find_symbol(lib, "cublasCreate_v2", &api.create, true, op);
  find_symbol(lib, "cublasSetStream_v2", &api.set_stream, true, op);
  find_symbol(lib, "cublasSetMathMode", &api.set_math_mode, true, op);
  find_symbol(lib, "cublasSetWorkspace_v2", &api.set_workspace, true, op);
  find_symbol(lib, "cublasGemmEx", &api.gemm, true, op);
  find_symbol(lib, "cublasGemmStridedBatchedEx", &api.gemm_batched, true, op);
  find_symbol(lib, "cublasGetStatusString", &api.status_string, false, op);
  find_symbol(lib, "cublasSgetrfBatched", &api.sgetrf_batched, false, op);
  find_symbol(lib, "cublasDgetrfBatched", &api.dgetrf_batched, false, op);
  find_symbol(lib, "cublasSgetrsBatched", &api.sgetrs_batched, false, op);
  find_symbol(lib, "cublasDgetrsBatched", &api.dgetrs_batched, false, op);
  return api;
}

// Loaded once (the first caller's op names a failure); a failed load raises and is tried again
// on the next call.
const Api& api(const char* op = "matmul") {
  static const Api loaded = load_api(op);
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

void check_status(BlasStatus s, const char* call, const char* op = "matmul") {
  if (s == kSuccess) [[likely]]
    return;
  const char* detail = api().status_string ? api().status_string(s) : nullptr;
  GENESIS_FAIL(ErrorKind::Runtime, op, call, " failed: ", status_name(s), " (", s, ")",
               detail ? str_cat(": ", detail) : std::string());
}

struct DeviceHandle {
  std::mutex mutex;
  BlasHandle handle = nullptr;
};

DeviceHandle& device_handle(int device, const char* op) {
  static std::array<DeviceHandle, kMaxCudaDevices> handles;
  GENESIS_CHECK(device >= 0 && device < kMaxCudaDevices, op, "device index ", device,
                " is out of range");
  return handles[device];
}

// The device's handle for one call: locked, pointed at the current stream and at a workspace
// from the caching pool on that stream. Every call sets its own workspace, whatever the
// routine: the one an earlier call set may be back in the pool by now.
class Session {
 public:
  Session(Device device, const char* op)
      : guard_(device.index),
        workspace_(
            Tensor::empty({static_cast<int64_t>(kWorkspaceBytes)}, ScalarType::UInt8, device)),
        dh_(device_handle(device.index, op)),
        lock_(dh_.mutex) {
    const Api& blas = api(op);
    if (!dh_.handle) {
      BlasHandle h = nullptr;
      check_status(blas.create(&h), "cublasCreate", op);
      check_status(blas.set_math_mode(h, kDefaultMath), "cublasSetMathMode", op);
      dh_.handle = h;
    }
    const StreamId stream = current_stream(device.index);
    check_status(blas.set_stream(dh_.handle, reinterpret_cast<cudaStream_t>(stream)),
                 "cublasSetStream", op);
    check_status(blas.set_workspace(dh_.handle, workspace_.mutable_data(), kWorkspaceBytes),
                 "cublasSetWorkspace", op);
  }
  BlasHandle handle() const { return dh_.handle; }

 private:
  DeviceGuard guard_;
  Tensor workspace_;
  DeviceHandle& dh_;
  std::lock_guard<std::mutex> lock_;
};

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

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_prefer_cublaslt(bool prefer) { g_prefer_lt.store(prefer, std::memory_order_relaxed); }
bool prefer_cublaslt() { return g_prefer_lt.load(std::memory_order_relaxed); }
LtStats lt_stats() { return lt::stats(); }

namespace {

lt::Matrix lt_matrix(const Operand& o) { return {o.data, o.col_major, o.ld, o.batch_stride}; }

// The product as cuBLASLt takes it (Note [cuBLASLt matmul] in blas_lt.cpp).
lt::Gemm lt_gemm(const Tensor& out, const Operand& oa, const Operand& ob, int64_t k) {
  lt::Gemm g;
  g.device = out.device().index;
  g.dtype = out.dtype();
  g.batch = out.sizes()[0];
  g.m = out.sizes()[1];
  g.n = out.sizes()[2];
  g.k = k;
  g.a = lt_matrix(oa);
  g.b = lt_matrix(ob);
  g.out = out.mutable_data();
  g.tf32 = allow_tf32();
  return g;
}

}  // namespace

bool gemm_bias(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
               double alpha, BiasActivation act, const Tensor* preactivation) {
  if (out.dtype() == ScalarType::Float64 || !prefer_cublaslt() || out.numel() == 0) return false;
  DeviceGuard guard(out.device().index);
  Operand oa = operand(a), ob = operand(b);
  lt::Gemm g = lt_gemm(out, oa, ob, a.sizes()[2]);
  g.alpha = alpha;
  g.bias = bias.data();
  g.activation = act;
  if (preactivation) g.aux = preactivation->mutable_data();
  return lt::matmul(g);
}

bool gemm_accumulate(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
  if (out.dtype() != ScalarType::Float32 || a.dtype() == ScalarType::Float64 ||
      !prefer_cublaslt() || out.numel() == 0 || a.sizes()[2] == 0)
    return false;
  DeviceGuard guard(out.device().index);
  Operand oa = operand(a), ob = operand(b);
  lt::Gemm g = lt_gemm(out, oa, ob, a.sizes()[2]);
  g.dtype = a.dtype();
  g.float_out = a.dtype() != ScalarType::Float32;
  g.accumulate = accumulate;
  return lt::matmul(g);
}

void gemm_strided_batched(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t batch = out.sizes()[0], m = out.sizes()[1], n = out.sizes()[2], k = a.sizes()[2];
  if (out.numel() == 0) return;
  const cudaDataType type = data_type(out.dtype());
  GENESIS_CHECK(fits_int(m) && fits_int(n) && fits_int(k), "matmul",
                "cuBLAS takes matrix sizes up to 2^31 - 1, got m=", m, ", n=", n, ", k=", k);
  DeviceGuard guard(out.device().index);
  Operand oa = operand(a), ob = operand(b);
  const bool f64 = out.dtype() == ScalarType::Float64;
  if (!f64 && prefer_cublaslt() && lt::matmul(lt_gemm(out, oa, ob, k))) return;
  const Api& blas = api();
  // Row-major C (m x n) is column-major C^T (n x m) = B^T A^T: cuBLAS's first operand is our b,
  // its second our a. A row-major matrix read column-major is already the transpose (op N).
  const int trans_b = ob.col_major ? kOpT : kOpN, trans_a = oa.col_major ? kOpT : kOpN;
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const void* alpha = f64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = f64 ? static_cast<const void*>(&zero_d) : &zero_f;
  const bool tf32 = out.dtype() == ScalarType::Float32 && allow_tf32();
  const int compute = f64 ? kCompute64F : tf32 ? kCompute32FFastTF32 : kCompute32F;
  Session session(out.device(), "matmul");
  const BlasHandle handle = session.handle();
  char* c = static_cast<char*>(out.mutable_data());
  if (batch == 1) {
    check_status(blas.gemm(handle, trans_b, trans_a, static_cast<int>(n), static_cast<int>(m),
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
        blas.gemm_batched(handle, trans_b, trans_a, static_cast<int>(n), static_cast<int>(m),
                          static_cast<int>(k), alpha, pb, type, static_cast<int>(ob.ld),
                          ob.batch_stride, pa, type, static_cast<int>(oa.ld), oa.batch_stride, beta,
                          c + first * m * n * item, type, static_cast<int>(n), m * n, count,
                          compute, kGemmDefault),
        "cublasGemmStridedBatchedEx");
  }
}

namespace {

// A routine that load_api() found optional, or a failure naming it.
template <typename Fn>
Fn routine(Fn fn, const char* name, const char* op) {
  GENESIS_CHECK(fn != nullptr, op, "cuBLAS could not be loaded: it has no ", name);
  return fn;
}

bool is_f64(ScalarType dtype, const char* op) {
  GENESIS_CHECK(dtype == ScalarType::Float32 || dtype == ScalarType::Float64, op,
                "cuBLAS's batched LU takes float32 or float64, got ", scalar_type_name(dtype));
  return dtype == ScalarType::Float64;
}

}  // namespace

void getrf_batched(Device device, ScalarType dtype, int n, void* const* matrices, int lda,
                   int* ipiv, int* info, int batch, const char* op) {
  if (batch == 0) return;
  const bool f64 = is_f64(dtype, op);
  const Api& blas = api(op);
  Session session(device, op);
  if (f64)
    check_status(routine(blas.dgetrf_batched, "cublasDgetrfBatched", op)(
                     session.handle(), n, reinterpret_cast<double* const*>(matrices), lda, ipiv,
                     info, batch),
                 "cublasDgetrfBatched", op);
  else
    check_status(
        routine(blas.sgetrf_batched, "cublasSgetrfBatched", op)(
            session.handle(), n, reinterpret_cast<float* const*>(matrices), lda, ipiv, info, batch),
        "cublasSgetrfBatched", op);
}

void getrs_batched(Device device, ScalarType dtype, int n, int nrhs, void* const* lu, int lda,
                   const int* ipiv, void* const* rhs, int ldb, int batch, const char* op) {
  if (batch == 0) return;
  const bool f64 = is_f64(dtype, op);
  const Api& blas = api(op);
  Session session(device, op);
  int info = 0;  // on the host: only ever a bad argument, checked before any work is queued
  if (f64)
    check_status(routine(blas.dgetrs_batched, "cublasDgetrsBatched", op)(
                     session.handle(), kOpN, n, nrhs, reinterpret_cast<const double* const*>(lu),
                     lda, ipiv, reinterpret_cast<double* const*>(rhs), ldb, &info, batch),
                 "cublasDgetrsBatched", op);
  else
    check_status(routine(blas.sgetrs_batched, "cublasSgetrsBatched", op)(
                     session.handle(), kOpN, n, nrhs, reinterpret_cast<const float* const*>(lu),
                     lda, ipiv, reinterpret_cast<float* const*>(rhs), ldb, &info, batch),
                 "cublasSgetrsBatched", op);
  GENESIS_CHECK(info == 0, op, "cublasXgetrsBatched rejected its argument ", -info);
}

}  // namespace genesis::cuda

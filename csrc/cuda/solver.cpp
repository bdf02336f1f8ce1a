// The decompositions through cuSOLVER (csrc/cuda/solver.h).
#include "cuda/solver.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cuda/blas.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/library_path.h"
#include "cuda/stream.h"
#include "kernels/batch_pointers.cuh"
#include "kernels/cholesky_small.cuh"
#include "vocab/limits.h"

#if __has_include(<cusolverDn.h>)
#include <cusolverDn.h>
#define GENESIS_HAVE_CUSOLVER_HEADER 1
#endif

// Note [Loading cuSOLVER]
// As cuBLAS (Note [Loading cuBLAS] in csrc/cuda/blas.cpp), cuSOLVER is never linked: the first
// CUDA decomposition dlopen()s it ($GENESIS_CUSOLVER_PATH first, then the CUDA 12 and 11
// sonames -- CUDA 13 still ships libcusolver.so.12 -- then the toolkit under $CUDA_HOME and
// /usr/local/cuda) and looks up the legacy 32-bit dense API (cusolverDn<S|D><routine> and its
// _bufferSize), whose types and enums are written here from the cuSOLVER documentation.
//
// One handle per device, never destroyed, used under its lock and pointed at the current
// stream for each call. Workspaces come from genesis's caching pool on that stream. A batch of
// several matrices goes to one batched call where that is faster (Note [Batched small
// matrices]: Cholesky always, through cusolverDn<S|D>potrfBatched; the LU through cuBLAS while
// n is small for the batch); any other batch is a host loop of one call per matrix (the
// workspace size is asked once per call). Either way each matrix writes its own devInfo, and the
// caller reads them all back with one copy.

// Note [Batched small matrices]
// A host loop of one library call per matrix costs a few launches and some host work per matrix
// whatever its size: 1024 float32 64x64 solves took about 130 ms that way. The batched routines
// take the whole batch in a few launches, and their time hardly grows with the batch while the
// GPU has room (on an H100, 2 to 512 float32 129x129 solves all took 0.5 to 0.7 ms), but it
// grows fast with n, since one matrix's work stays in a few blocks. So:
//  - LU (getrf) and the LU solve (getrs): cuBLAS's cublas<S|D>getrfBatched and getrsBatched
//    (loaded with matmul's cuBLAS, Note [Loading cuBLAS]) when batch > 1 and n * n <=
//    kBatchedLuArea * batch, kBatchedLuArea = 128 * 128, i.e. n <= 128 * sqrt(batch): 181 for 2
//    matrices, 362 for 8, 1024 for 64. Measured on an H100 (solve = getrf + getrs, loop vs
//    batched, ms): 2 float32 matrices, n = 192: 0.84 vs 0.74, n = 256: 1.12 vs 1.34; 8, n = 512:
//    9.3 vs 6.8, n = 768: 14.6 vs 20.7; 64, n = 512: 80 vs 9.9; 1024, n = 129: 308 vs (n = 128)
//    1.0. The rule stays below the crossovers measured (float64's lie further out); PyTorch's
//    lu_factor heuristic has the same form (n * n against a multiple of the batch). getrfBatched
//    writes n 1-based pivots per matrix and one info per matrix (i > 0: U(i, i) is exactly zero,
//    the factorisation still completed), the layout of the loop's getrf; getrsBatched's info is
//    a host int that only reports a bad argument.
//  - Cholesky (potrf) of order n <= 32, and of n <= 64 with at most 1024 matrices: genesis's
//    own kernel, several matrices a block in shared memory (Note [Small Cholesky in shared
//    memory] in kernels/cholesky_small.cu). On an H200 (float32, the op, against PyTorch's):
//    16384 matrices of 32 x 32 0.43 against 0.57 ms, 65536 1.31 against 1.99 ms; 1024 of
//    64 x 64 155 against 167 us; 2048 of them through cuSOLVER 283 against 275 us. Over order
//    32 a block holds one matrix, and the kernel's time grows with the batch faster than
//    cuSOLVER's, so larger batches of such orders stay with cuSOLVER. Otherwise
//    cusolverDn<S|D>potrfBatched whenever batch > 1, as PyTorch: on the H100
//    it was at most about 7% slower than the loop (2 matrices, n = 1024) and up to 100 times
//    faster (512, n = 129: 54 ms vs 0.5). Only from cuSOLVER 11.1.1 (CUDA 11.3) on: PyTorch found
//    numerical issues in earlier ones. Its info is the loop's (per matrix, the order of the first
//    leading minor that is not positive-definite); it uses the triangle it does not factor as a
//    workspace, which the caller zeroes anyway (ops/linalg_decomp.cpp).
// The batched routines take a device array of pointers to the matrices. A kernel writes it
// (kernels/batch_pointers.cu) into a buffer from the caching pool, on the current stream: no
// copy from pageable host memory, which would wait for the device. batchSize is an int, so a
// larger batch goes in chunks. eigh, svd and qr stay loops: their batched routines
// (syevjBatched and gesvdjBatched for n <= 32, Jacobi methods with their own tolerance and
// sweeps; cuBLAS's geqrfBatched) would each need their own accuracy and speed checks.

namespace genesis::cuda {

namespace {

using Handle = struct SolverContext*;  // cusolverDnHandle_t
using Status = int;                    // cusolverStatus_t
constexpr Status kSuccess = 0;
constexpr int kFillLower = 0, kFillUpper = 1;    // cublasFillMode_t
constexpr int kOpN = 0;                          // cublasOperation_t
constexpr int kEigNoVector = 0, kEigVector = 1;  // cusolverEigMode_t
// Note [Batched small matrices]: a batch goes to the batched LU while n * n <= kBatchedLuArea *
// batch, and the first cuSOLVER whose potrfBatched is used (11.1.1, in CUDA 11.3).
constexpr int64_t kBatchedLuArea = 128 * 128;
constexpr int kPotrfBatchedMinVersion = 11101;
constexpr int64_t kSmallCholeskyMaxBatch = 1024;

#ifdef GENESIS_HAVE_CUSOLVER_HEADER
static_assert(CUSOLVER_STATUS_SUCCESS == kSuccess && CUBLAS_FILL_MODE_LOWER == kFillLower &&
              CUBLAS_FILL_MODE_UPPER == kFillUpper && CUBLAS_OP_N == kOpN);
static_assert(CUSOLVER_EIG_MODE_NOVECTOR == kEigNoVector && CUSOLVER_EIG_MODE_VECTOR == kEigVector);
#endif

template <typename T>
struct Routines {
  Status (*getrf_size)(Handle, int, int, T*, int, int*);
  Status (*getrf)(Handle, int, int, T*, int, T*, int*, int*);
  Status (*getrs)(Handle, int, int, int, const T*, int, const int*, T*, int, int*);
  Status (*potrf_size)(Handle, int, int, T*, int, int*);
  Status (*potrf)(Handle, int, int, T*, int, T*, int, int*);
  Status (*geqrf_size)(Handle, int, int, T*, int, int*);
  Status (*geqrf)(Handle, int, int, T*, int, T*, T*, int, int*);
  Status (*orgqr_size)(Handle, int, int, int, const T*, int, const T*, int*);
  Status (*orgqr)(Handle, int, int, int, T*, int, const T*, T*, int, int*);
  Status (*gesvd_size)(Handle, int, int, int*);
  Status (*gesvd)(Handle, signed char, signed char, int, int, T*, int, T*, T*, int, T*, int, T*,
                  int, T*, int*);
  Status (*syevd_size)(Handle, int, int, int, const T*, int, const T*, int*);
  Status (*syevd)(Handle, int, int, int, T*, int, T*, T*, int, int*);
  // Optional (null when missing or too old): Note [Batched small matrices].
  Status (*potrf_batched)(Handle, int, int, T**, int, int*, int);
};

struct Api {
  Status (*create)(Handle*);
  Status (*set_stream)(Handle, cudaStream_t);
  int version = 0;  // cusolverGetVersion's major * 1000 + minor * 100 + patch; 0 if unknown
  Routines<float> s;
  Routines<double> d;
};

template <typename Fn>
void find_symbol(void* lib, const std::string& name, Fn* fn, const char* op) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name.c_str()));
  if (!*fn) {
    const char* err = dlerror();
    GENESIS_FAIL(ErrorKind::Runtime, op, "cuSOLVER could not be loaded: ", err ? err : name);
  }
}

template <typename T>
void find_routines(void* lib, const char* p, Routines<T>& r, const char* op) {
  auto name = [&](const char* routine) { return str_cat("cusolverDn", p, routine); };
  find_symbol(lib, name("getrf_bufferSize"), &r.getrf_size, op);
  find_symbol(lib, name("getrf"), &r.getrf, op);
  find_symbol(lib, name("getrs"), &r.getrs, op);
  find_symbol(lib, name("potrf_bufferSize"), &r.potrf_size, op);
  find_symbol(lib, name("potrf"), &r.potrf, op);
  find_symbol(lib, name("geqrf_bufferSize"), &r.geqrf_size, op);
  find_symbol(lib, name("geqrf"), &r.geqrf, op);
  find_symbol(lib, name("orgqr_bufferSize"), &r.orgqr_size, op);
  find_symbol(lib, name("orgqr"), &r.orgqr, op);
  find_symbol(lib, name("gesvd_bufferSize"), &r.gesvd_size, op);
  find_symbol(lib, name("gesvd"), &r.gesvd, op);
  find_symbol(lib, name("syevd_bufferSize"), &r.syevd_size, op);
  find_symbol(lib, name("syevd"), &r.syevd, op);
  r.potrf_batched =
      reinterpret_cast<decltype(r.potrf_batched)>(dlsym(lib, name("potrfBatched").c_str()));
}

Api load_api(const char* op) {
  void* lib = nullptr;
  std::string first_error, tried;
  for (const std::string& name :
       library_candidates("GENESIS_CUSOLVER_PATH", "libcusolver.so", {"12", "11"})) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* err = dlerror();
    if (first_error.empty()) first_error = err ? err : name;
    tried += tried.empty() ? name : ", " + name;
  }
  GENESIS_CHECK(lib != nullptr, op, "cuSOLVER could not be loaded: ", first_error, " (tried ",
                tried,
                "; install the CUDA toolkit's cuSOLVER or set GENESIS_CUSOLVER_PATH to the "
                "library)");
  Api api{};
  find_symbol(lib, "cusolverDnCreate", &api.create, op);
  find_symbol(lib, "cusolverDnSetStream", &api.set_stream, op);
  find_routines(lib, "S", api.s, op);
  find_routines(lib, "D", api.d, op);
  using GetVersion = Status (*)(int*);
  if (auto get_version = reinterpret_cast<GetVersion>(dlsym(lib, "cusolverGetVersion"));
      !get_version || get_version(&api.version) != kSuccess)
    api.version = 0;
  if (api.version < kPotrfBatchedMinVersion) {
    api.s.potrf_batched = nullptr;
    api.d.potrf_batched = nullptr;
  }
  return api;
}

// Loaded once; a failed load raises and is tried again on the next call.
const Api& api(const char* op) {
  static const Api loaded = load_api(op);
  return loaded;
}

template <typename T>
const Routines<T>& routines(const char* op) {
  if constexpr (std::is_same_v<T, double>)
    return api(op).d;
  else
    return api(op).s;
}

const char* status_name(Status s) {
  switch (s) {
    case 1:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case 2:
      return "CUSOLVER_STATUS_ALLOC_FAILED";
    case 3:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case 4:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case 6:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case 7:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case 8:
      return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
  }
  return "CUSOLVER_STATUS_UNKNOWN";
}

void check_status(Status s, const char* call, const char* op) {
  if (s == kSuccess) [[likely]]
    return;
  GENESIS_FAIL(ErrorKind::Runtime, op, call, " failed: ", status_name(s), " (", s, ")");
}

struct DeviceHandle {
  std::mutex mutex;
  Handle handle = nullptr;
};

// The device's handle, locked and pointed at the current stream, for one call.
class Session {
 public:
  Session(const Tensor& t, const char* op)
      : guard_(t.device().index), dh_(device_handle(t.device().index, op)), lock_(dh_.mutex) {
    const Api& solver = api(op);
    if (!dh_.handle) {
      Handle h = nullptr;
      check_status(solver.create(&h), "cusolverDnCreate", op);
      dh_.handle = h;
    }
    const StreamId stream = current_stream(t.device().index);
    check_status(solver.set_stream(dh_.handle, reinterpret_cast<cudaStream_t>(stream)),
                 "cusolverDnSetStream", op);
  }
  Handle handle() const { return dh_.handle; }

 private:
  static DeviceHandle& device_handle(int device, const char* op) {
    static std::array<DeviceHandle, kMaxCudaDevices> handles;
    GENESIS_CHECK(device >= 0 && device < kMaxCudaDevices, op, "device index ", device,
                  " is out of range");
    return handles[device];
  }
  DeviceGuard guard_;
  DeviceHandle& dh_;
  std::lock_guard<std::mutex> lock_;
};

int as_int(int64_t v, const char* op) {
  GENESIS_CHECK(v >= 0 && v <= INT_MAX, op, "cuSOLVER takes sizes up to 2^31 - 1, got ", v);
  return static_cast<int>(v);
}

struct Dims {
  int64_t batch;
  int rows, cols, ld;
};

Dims dims_of(const Tensor& a, const char* op) {
  const int rows = as_int(a.sizes()[2], op), cols = as_int(a.sizes()[1], op);
  return {a.sizes()[0], rows, cols, std::max(1, rows)};
}

template <typename F>
void with_type(const Tensor& a, F&& f) {
  if (a.dtype() == ScalarType::Float64)
    f(double{});
  else
    f(float{});
}

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.mutable_data());
}

// A device workspace of n items of a's dtype (at least one) from the caching pool.
Tensor workspace(const Tensor& a, int64_t n) {
  return Tensor::empty({std::max<int64_t>(1, n)}, a.dtype(), a.device());
}

// A devInfo for routines whose info only reports bad arguments.
Tensor scratch_info(const Tensor& a) { return Tensor::empty({1}, ScalarType::Int32, a.device()); }

// Whether a batch of n x n matrices goes to the batched LU (Note [Batched small matrices]).
bool batched_lu(const Dims& d) {
  return d.batch > 1 && int64_t{d.rows} * d.rows <= kBatchedLuArea * d.batch;
}

// A device array of pointers to buf's matrices (a contiguous (batch, cols, rows) buffer), from
// the caching pool, written by a kernel on the current stream of buf's device, which must be
// the current device.
Tensor matrix_pointers(const Tensor& buf, const Dims& d) {
  Tensor out = Tensor::empty({d.batch}, ScalarType::Int64, buf.device());
  const int64_t stride = int64_t{d.rows} * d.cols * static_cast<int64_t>(buf.itemsize());
  kernels::launch_batch_pointers(static_cast<void**>(out.mutable_data()), buf.mutable_data(),
                                 stride, d.batch,
                                 reinterpret_cast<void*>(current_stream(buf.device().index)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
  return out;
}

// f(first, count) over the batch in chunks whose count fits batchSize's int.
template <typename F>
void in_chunks(int64_t batch, F&& f) {
  for (int64_t first = 0; first < batch; first += INT_MAX)
    f(first, static_cast<int>(std::min<int64_t>(INT_MAX, batch - first)));
}

}  // namespace

void linalg_getrf(const Tensor& a, const Tensor& ipiv, const Tensor& info, const char* op) {
  const Dims d = dims_of(a, op);
  if (d.rows == 0 || d.batch == 0) return;
  if (batched_lu(d)) {
    DeviceGuard guard(a.device().index);
    Tensor ptrs = matrix_pointers(a, d);
    in_chunks(d.batch, [&](int64_t first, int count) {
      getrf_batched(a.device(), a.dtype(), d.rows, ptr<void*>(ptrs) + first, d.ld,
                    ptr<int>(ipiv) + first * d.rows, ptr<int>(info) + first, count, op);
    });
    return;
  }
  Session session(a, op);
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    const Routines<T>& r = routines<T>(op);
    int lwork = 0;
    check_status(r.getrf_size(session.handle(), d.rows, d.rows, ptr<T>(a), d.ld, &lwork),
                 "cusolverDnXgetrf_bufferSize", op);
    Tensor work = workspace(a, lwork);
    for (int64_t b = 0; b < d.batch; ++b)
      check_status(r.getrf(session.handle(), d.rows, d.rows, ptr<T>(a) + b * d.rows * d.rows, d.ld,
                           ptr<T>(work), ptr<int>(ipiv) + b * d.rows, ptr<int>(info) + b),
                   "cusolverDnXgetrf", op);
  });
}

void linalg_getrs(const Tensor& lu, const Tensor& ipiv, const Tensor& b, const char* op) {
  const Dims d = dims_of(lu, op), rhs = dims_of(b, op);
  if (d.rows == 0 || rhs.cols == 0 || d.batch == 0) return;
  if (batched_lu(d)) {
    DeviceGuard guard(lu.device().index);
    Tensor lu_ptrs = matrix_pointers(lu, d), b_ptrs = matrix_pointers(b, rhs);
    in_chunks(d.batch, [&](int64_t first, int count) {
      getrs_batched(lu.device(), lu.dtype(), d.rows, rhs.cols, ptr<void*>(lu_ptrs) + first, d.ld,
                    ptr<int>(ipiv) + first * d.rows, ptr<void*>(b_ptrs) + first, rhs.ld, count, op);
    });
    return;
  }
  Session session(lu, op);
  Tensor info = scratch_info(lu);
  with_type(lu, [&](auto tag) {
    using T = decltype(tag);
    const Routines<T>& r = routines<T>(op);
    for (int64_t i = 0; i < d.batch; ++i)
      check_status(r.getrs(session.handle(), kOpN, d.rows, rhs.cols,
                           ptr<T>(lu) + i * d.rows * d.rows, d.ld, ptr<int>(ipiv) + i * d.rows,
                           ptr<T>(b) + i * int64_t{rhs.rows} * rhs.cols, rhs.ld, ptr<int>(info)),
                   "cusolverDnXgetrs", op);
  });
}

bool potrf_in_own_kernel(int64_t n, int64_t batch) {
  return n <= kernels::kSmallCholeskyNarrowOrder ||
         (n <= kernels::kSmallCholeskyMaxOrder && batch <= kSmallCholeskyMaxBatch);
}

bool linalg_potrf(const Tensor& a, bool lower, const Tensor& info, const char* op) {
  const Dims d = dims_of(a, op);
  if (d.rows == 0 || d.batch == 0) return true;
  // Note [Batched small matrices]: small orders and batches in genesis's own kernel.
  if (potrf_in_own_kernel(d.rows, d.batch)) {
    const int device = a.device().index;
    DeviceGuard guard(device);
    kernels::launch_cholesky_small(a.mutable_data(), a.dtype() == ScalarType::Float64, d.rows,
                                   d.batch, lower, ptr<int>(info),
                                   reinterpret_cast<void*>(current_stream(device)));
    GENESIS_CUDA_CHECK(cudaGetLastError());
    return true;
  }
  Session session(a, op);
  const int fill = lower ? kFillLower : kFillUpper;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    const Routines<T>& r = routines<T>(op);
    if (d.batch > 1 && r.potrf_batched) {
      Tensor ptrs = matrix_pointers(a, d);
      in_chunks(d.batch, [&](int64_t first, int count) {
        check_status(r.potrf_batched(session.handle(), fill, d.rows, ptr<T*>(ptrs) + first, d.ld,
                                     ptr<int>(info) + first, count),
                     "cusolverDnXpotrfBatched", op);
      });
      return;
    }
    int lwork = 0;
    check_status(r.potrf_size(session.handle(), fill, d.rows, ptr<T>(a), d.ld, &lwork),
                 "cusolverDnXpotrf_bufferSize", op);
    Tensor work = workspace(a, lwork);
    for (int64_t b = 0; b < d.batch; ++b)
      check_status(r.potrf(session.handle(), fill, d.rows, ptr<T>(a) + b * d.rows * d.rows, d.ld,
                           ptr<T>(work), lwork, ptr<int>(info) + b),
                   "cusolverDnXpotrf", op);
  });
  return false;
}

void linalg_geqrf(const Tensor& a, const Tensor& tau, const char* op) {
  const Dims d = dims_of(a, op);
  const int k = std::min(d.rows, d.cols);
  if (k == 0 || d.batch == 0) return;
  Session session(a, op);
  Tensor info = scratch_info(a);
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    const Routines<T>& r = routines<T>(op);
    int lwork = 0;
    check_status(r.geqrf_size(session.handle(), d.rows, d.cols, ptr<T>(a), d.ld, &lwork),
                 "cusolverDnXgeqrf_bufferSize", op);
    Tensor work = workspace(a, lwork);
    for (int64_t b = 0; b < d.batch; ++b)
      check_status(
          r.geqrf(session.handle(), d.rows, d.cols, ptr<T>(a) + b * int64_t{d.rows} * d.cols, d.ld,
                  ptr<T>(tau) + b * k, ptr<T>(work), lwork, ptr<int>(info)),
          "cusolverDnXgeqrf", op);
  });
}

void linalg_orgqr(const Tensor& q, const Tensor& tau, const char* op) {
  const Dims d = dims_of(q, op);
  const int k = as_int(tau.sizes()[1], op);
  if (d.rows == 0 || d.cols == 0 || d.batch == 0) return;
  Session session(q, op);
  Tensor info = scratch_info(q);
  with_type(q, [&](auto tag) {
    using T = decltype(tag);
    const Routines<T>& r = routines<T>(op);
    int lwork = 0;
    check_status(
        r.orgqr_size(session.handle(), d.rows, d.cols, k, ptr<T>(q), d.ld, ptr<T>(tau), &lwork),
        "cusolverDnXorgqr_bufferSize", op);
    Tensor work = workspace(q, lwork);
    for (int64_t b = 0; b < d.batch; ++b)
      check_status(
          r.orgqr(session.handle(), d.rows, d.cols, k, ptr<T>(q) + b * int64_t{d.rows} * d.cols,
                  d.ld, ptr<T>(tau) + b * k, ptr<T>(work), lwork, ptr<int>(info)),
          "cusolverDnXorgqr", op);
  });
}

void linalg_gesvd(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, bool full,
                  const Tensor& info, const char* op) {
  const Dims d = dims_of(a, op);
  const int k = std::min(d.rows, d.cols);
  if (k == 0 || d.batch == 0) return;
  const bool vectors = u.defined();
  // rows >= cols: VT is cols x cols whether full or not.
  const signed char jobu = !vectors ? 'N' : full ? 'A' : 'S', jobvt = vectors ? 'A' : 'N';
  const int64_t ucols = vectors ? u.sizes()[1] : 0;
  Session session(a, op);
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    const Routines<T>& r = routines<T>(op);
    int lwork = 0;
    check_status(r.gesvd_size(session.handle(), d.rows, d.cols, &lwork),
                 "cusolverDnXgesvd_bufferSize", op);
    Tensor work = workspace(a, lwork), rwork = workspace(a, k);
    for (int64_t b = 0; b < d.batch; ++b) {
      T* pu = vectors ? ptr<T>(u) + b * d.rows * ucols : nullptr;
      T* pv = vectors ? ptr<T>(vt) + b * int64_t{k} * k : nullptr;
      check_status(
          r.gesvd(session.handle(), jobu, jobvt, d.rows, d.cols,
                  ptr<T>(a) + b * int64_t{d.rows} * d.cols, d.ld, ptr<T>(s) + b * k, pu, d.ld, pv,
                  std::max(1, k), ptr<T>(work), lwork, ptr<T>(rwork), ptr<int>(info) + b),
          "cusolverDnXgesvd", op);
    }
  });
}

void linalg_syevd(const Tensor& a, bool lower, bool vectors, const Tensor& w, const Tensor& info,
                  const char* op) {
  const Dims d = dims_of(a, op);
  if (d.rows == 0 || d.batch == 0) return;
  Session session(a, op);
  const int fill = lower ? kFillLower : kFillUpper, mode = vectors ? kEigVector : kEigNoVector;
  with_type(a, [&](auto tag) {
    using T = decltype(tag);
    const Routines<T>& r = routines<T>(op);
    int lwork = 0;
    check_status(
        r.syevd_size(session.handle(), mode, fill, d.rows, ptr<T>(a), d.ld, ptr<T>(w), &lwork),
        "cusolverDnXsyevd_bufferSize", op);
    Tensor work = workspace(a, lwork);
    for (int64_t b = 0; b < d.batch; ++b)
      check_status(
          r.syevd(session.handle(), mode, fill, d.rows, ptr<T>(a) + b * int64_t{d.rows} * d.rows,
                  d.ld, ptr<T>(w) + b * d.rows, ptr<T>(work), lwork, ptr<int>(info) + b),
          "cusolverDnXsyevd", op);
  });
}

}  // namespace genesis::cuda

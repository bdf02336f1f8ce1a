// Matrix products through cuBLASLt (csrc/cuda/blas_lt.h).
#include "cuda/blas_lt.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <library_types.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/errors.h"
#include "cuda/device_guard.h"
#include "cuda/library_path.h"
#include "cuda/stream.h"

#if __has_include(<cublasLt.h>)
#include <cublasLt.h>
#define GENESIS_HAVE_CUBLASLT_HEADER 1
#endif

// Note [cuBLASLt matmul]
// cuBLAS's gemm chooses its kernel inside every call; PyTorch's matmul goes through cuBLASLt,
// which lets the caller ask for an algorithm once, keep it, and hand it a workspace per call
// (issue 19 measured cuBLAS's bfloat16 8192^3 at 0.88-0.91x PyTorch's). So every float16,
// bfloat16 and float32 product (gemm_strided_batched in blas.cpp) tries cuBLASLt first:
// - Loading: dlopen()ed as cuBLAS is (Note [Loading cuBLAS]): $GENESIS_CUBLASLT_PATH, the CUDA 13
//   and 12 sonames, the toolkit. A missing cuBLASLt is no error: the product goes to cuBLAS,
//   which raises when it is missing too. The load is tried once.
// - One handle per device, never destroyed; a mutex per device guards it and the device's plans.
// - Row-major through transposes: our C = A B is C^T = B^T A^T in column-major, so Lt's "A" is
//   our b and its "B" our a, and an operand stored column-major (a transposed view) goes with
//   op T: no transposed operand is copied.
// - Plans: cublasLtMatmulAlgoGetHeuristic costs tens of microseconds, so each device keeps, per
//   key, the descriptors and the algorithm the heuristic chose. The key is everything the choice
//   depends on: dtype, batch, m, n, k, each operand's order, leading dimension and batch stride,
//   the alignment of every pointer (up to 256 bytes; the heuristic rules kernels out by it, so a
//   view at an odd offset gets other kernels than the pool's 512-byte-aligned blocks), the
//   epilogue (bias, and its activation) and TF32. A key with no algorithm (or whose call
//   failed) is remembered as such and goes to cuBLAS without asking again. Past kMaxPlans keys
//   the cache starts over.
// - Workspace: the heuristic may use up to 32 MiB (what PyTorch gives cuBLAS on Hopper; less
//   rules out some split-K kernels); the chosen algorithm says how much it needs, and that much
//   is taken from the caching pool on the current stream for the call (nothing when it needs
//   none). The pool's stream-ordered reuse ties it to that stream: the block freed after the
//   call goes back to that stream's free list, so only work queued later on the same stream can
//   reuse it, and concurrent streams never share a workspace.
// - TF32: float32 uses CUBLAS_COMPUTE_32F_FAST_TF32 when genesis.backends.cuda.matmul.allow_tf32
//   is on (one relaxed atomic load a call), else CUBLAS_COMPUTE_32F; float16 and bfloat16
//   accumulate in float32 either way. TF32 is part of the key.
// - Epilogues: addmm's bias (a row vector of the output's columns, beta == 1) is Lt's BIAS
//   epilogue. Lt's D has our columns as its rows, and Lt adds the bias along D's rows, so it
//   lands on our columns, in the same pass that writes the product; alpha scales the product
//   only, as in addmm. genesis._addmm_activation asks for RELU_BIAS or GELU_BIAS instead: the
//   activation is applied to alpha * product + bias in the same pass, before the store (so a
//   16-bit output is rounded once, after the activation). Lt's GELU is the tanh approximation
//   (x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), which is why _addmm_activation's use_gelu
//   on CUDA is the tanh GELU everywhere, fused or not, as PyTorch's is; F.gelu's default, the
//   exact erf GELU, never goes through this epilogue. The activation is part of the key.
// - GELU_AUX_BIAS: GELU_BIAS that also stores the GELU's input (alpha * product + bias, before
//   the activation) in an aux matrix, for a GELU forward whose gradient is wanted (Note [Fused
//   matmul epilogues] in ops/products.cpp). NVIDIA's cuBLAS guide (cublasLtEpilogue_t,
//   cublasLtMatmulDescAttributes_t) sets the rules: the aux matrix has D's type when
//   EPILOGUE_AUX_DATA_TYPE is unset (we leave it so: float16, bfloat16 or float32, as out), it is
//   column-major like D with EPILOGUE_AUX_LD, which "must be divisible by 8 and be no less than
//   the number of rows" of D, and a batch has EPILOGUE_AUX_BATCH_STRIDE (divisible by 8). Our aux
//   is laid out as out, row-major (m, n), i.e. Lt's column-major (n, m) with ld n, as D: so n
//   must be a multiple of 8, else the call is declined (counted as a fallback) before Lt is
//   asked, and the caller composes. The heuristic reads the aux pointer's alignment (the guide
//   says so), so it is part of the key, with the epilogue itself.
// - Accumulating (gemm_accumulate): D = C = a float32 out beside 16-bit A and B (Lt's mixed
//   "16F/16BF in, 32F out" case, float32 compute and scale) with beta 1, so a sum of products over
//   chunks stays in float32 and costs one read and one write of it a product. Both flags are
//   part of the key; no bias with it.
// - float64 stays on cuBLAS (nothing to fuse, and issue 19's goals are 16- and 32-bit), as do
//   batches of more than 2^31 - 1 matrices (cuBLAS's path splits them) and sizes past int32.

namespace genesis::cuda::lt {

namespace {

using LtHandle = struct LtContext*;  // cublasLtHandle_t
using Desc = struct LtDesc*;         // cublasLtMatmulDesc_t
using Layout = struct LtLayout*;     // cublasLtMatrixLayout_t
using Pref = struct LtPref*;         // cublasLtMatmulPreference_t
using Status = int;                  // cublasStatus_t
struct Algo {                        // cublasLtMatmulAlgo_t
  uint64_t data[8];
};
struct HeuristicResult {  // cublasLtMatmulHeuristicResult_t
  Algo algo;
  size_t workspace_size;
  Status state;
  float waves_count;
  int reserved[4];
};

constexpr Status kSuccess = 0;
constexpr int kOpN = 0, kOpT = 1;                                  // cublasOperation_t
constexpr int kCompute32F = 68, kCompute32FFastTF32 = 77;          // cublasComputeType_t
constexpr int kDescTransA = 3, kDescTransB = 4;                    // cublasLtMatmulDescAttributes_t
constexpr int kDescEpilogue = 7, kDescBiasPointer = 8;             // ...
constexpr int kDescAuxPointer = 11, kDescAuxLd = 12;               // ...
constexpr int kDescAuxBatchStride = 13;                            // ...
constexpr uint32_t kEpilogueDefault = 1, kEpilogueBias = 4;        // cublasLtEpilogue_t
constexpr uint32_t kEpilogueReluBias = 6, kEpilogueGeluBias = 36;  // ...
constexpr uint32_t kEpilogueGeluAuxBias = 164;                     // ...
constexpr int64_t kAuxLdMultiple = 8;  // EPILOGUE_AUX_LD's rule for a GELU input matrix
constexpr int kLayoutBatchCount = 5, kLayoutBatchStride = 6;  // cublasLtMatrixLayoutAttribute_t
constexpr int kPrefMaxWorkspace = 1;  // cublasLtMatmulPreferenceAttributes_t
constexpr int kPrefAlignA = 5, kPrefAlignB = 6, kPrefAlignC = 7, kPrefAlignD = 8;
constexpr uint64_t kMaxWorkspaceBytes = uint64_t{32} << 20;
constexpr size_t kMaxPlans = 4096;

#ifdef GENESIS_HAVE_CUBLASLT_HEADER
static_assert(sizeof(HeuristicResult) == sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(sizeof(Algo) == sizeof(cublasLtMatmulAlgo_t));
static_assert(CUBLAS_COMPUTE_32F == kCompute32F &&
              CUBLAS_COMPUTE_32F_FAST_TF32 == kCompute32FFastTF32);
static_assert(CUBLASLT_MATMUL_DESC_TRANSA == kDescTransA &&
              CUBLASLT_MATMUL_DESC_TRANSB == kDescTransB);
static_assert(CUBLASLT_MATMUL_DESC_EPILOGUE == kDescEpilogue &&
              CUBLASLT_MATMUL_DESC_BIAS_POINTER == kDescBiasPointer);
static_assert(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER == kDescAuxPointer &&
              CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD == kDescAuxLd &&
              CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE == kDescAuxBatchStride);
static_assert(CUBLASLT_EPILOGUE_DEFAULT == kEpilogueDefault &&
              CUBLASLT_EPILOGUE_BIAS == kEpilogueBias &&
              CUBLASLT_EPILOGUE_RELU_BIAS == kEpilogueReluBias &&
              CUBLASLT_EPILOGUE_GELU_BIAS == kEpilogueGeluBias &&
              CUBLASLT_EPILOGUE_GELU_AUX_BIAS == kEpilogueGeluAuxBias);
static_assert(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT == kLayoutBatchCount &&
              CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET == kLayoutBatchStride);
static_assert(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES == kPrefMaxWorkspace &&
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES == kPrefAlignA &&
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES == kPrefAlignD);
#endif
static_assert(sizeof(Algo) == 64 && sizeof(HeuristicResult) == 96);

struct Api {
  Status (*create)(LtHandle*);
  Status (*desc_create)(Desc*, int, cudaDataType);
  Status (*desc_destroy)(Desc);
  Status (*desc_set)(Desc, int, const void*, size_t);
  Status (*layout_create)(Layout*, cudaDataType, uint64_t, uint64_t, int64_t);
  Status (*layout_destroy)(Layout);
  Status (*layout_set)(Layout, int, const void*, size_t);
  Status (*pref_create)(Pref*);
  Status (*pref_destroy)(Pref);
  Status (*pref_set)(Pref, int, const void*, size_t);
  Status (*heuristic)(LtHandle, Desc, Layout, Layout, Layout, Layout, Pref, int, HeuristicResult*,
                      int*);
  Status (*matmul)(LtHandle, Desc, const void*, const void*, Layout, const void*, Layout,
                   const void*, const void*, Layout, void*, Layout, const Algo*, void*, size_t,
                   cudaStream_t);
};

template <typename Fn>
bool find_symbol(void* lib, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return *fn != nullptr;
}

// The loaded library, or nullptr when there is none (or it lacks a function): then every
// product goes to cuBLAS.
const Api* load_api() {
  void* lib = nullptr;
  for (const std::string& name :
       library_candidates("GENESIS_CUBLASLT_PATH", "libcublasLt.so", {"13", "12"}))
    if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib) return nullptr;
  static Api loaded{};
  Api& api = loaded;
  bool ok = find_symbol(lib, "cublasLtCreate", &api.create) &&
            find_symbol(lib, "cublasLtMatmulDescCreate", &api.desc_create) &&
            find_symbol(lib, "cublasLtMatmulDescDestroy", &api.desc_destroy) &&
            find_symbol(lib, "cublasLtMatmulDescSetAttribute", &api.desc_set) &&
            find_symbol(lib, "cublasLtMatrixLayoutCreate", &api.layout_create) &&
            find_symbol(lib, "cublasLtMatrixLayoutDestroy", &api.layout_destroy) &&
            find_symbol(lib, "cublasLtMatrixLayoutSetAttribute", &api.layout_set) &&
            find_symbol(lib, "cublasLtMatmulPreferenceCreate", &api.pref_create) &&
            find_symbol(lib, "cublasLtMatmulPreferenceDestroy", &api.pref_destroy) &&
            find_symbol(lib, "cublasLtMatmulPreferenceSetAttribute", &api.pref_set) &&
            find_symbol(lib, "cublasLtMatmulAlgoGetHeuristic", &api.heuristic) &&
            find_symbol(lib, "cublasLtMatmul", &api.matmul);
  return ok ? &api : nullptr;
}

const Api* api() {
  static const Api* loaded = load_api();
  return loaded;
}

std::atomic<int64_t> g_calls{0}, g_fallbacks{0}, g_aux_calls{0};

cudaDataType data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return CUDA_R_16F;
    case ScalarType::BFloat16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

// The largest power of two up to 256 that divides the address: what the heuristic is told.
int64_t alignment(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  return v == 0 ? 256 : static_cast<int64_t>(std::min<uintptr_t>(256, v & (~v + 1)));
}

// The epilogue of g: the bias alone, or with the activation after it (Lt has no activation
// epilogue that we use without a bias), the GELU's with its input kept when g has aux.
uint32_t epilogue_of(const Gemm& g) {
  if (!g.bias) return kEpilogueDefault;
  switch (g.activation) {
    case BiasActivation::Relu:
      return kEpilogueReluBias;
    case BiasActivation::GeluTanh:
      return g.aux ? kEpilogueGeluAuxBias : kEpilogueGeluBias;
    default:
      return kEpilogueBias;
  }
}

using Key = std::array<int64_t, 20>;

struct KeyHash {
  size_t operator()(const Key& key) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
    for (int64_t v : key) h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

Key key_of(const Gemm& g) {
  return {static_cast<int64_t>(g.dtype),
          g.batch,
          g.m,
          g.n,
          g.k,
          g.a.col_major,
          g.a.ld,
          g.a.batch_stride,
          g.b.col_major,
          g.b.ld,
          g.b.batch_stride,
          alignment(g.a.data),
          alignment(g.b.data),
          alignment(g.out),
          g.bias ? alignment(g.bias) : 0,  // 0: no bias epilogue
          g.aux ? alignment(g.aux) : 0,    // 0: no aux matrix
          static_cast<int64_t>(epilogue_of(g)),
          g.dtype == ScalarType::Float32 && g.tf32,  // 16-bit types: one plan either way
          g.float_out,
          g.accumulate};
}

// The descriptors and algorithm of one key; usable false: go to cuBLAS.
struct Plan {
  bool usable = false;
  Desc desc = nullptr;
  Layout la = nullptr, lb = nullptr, lc = nullptr;  // Lt's A (our b), B (our a), C = D
  Algo algo{};
  size_t workspace = 0;

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    const Api* lt = api();
    if (desc) lt->desc_destroy(desc);
    for (Layout l : {la, lb, lc})
      if (l) lt->layout_destroy(l);
  }
};

struct DeviceState {
  std::mutex mutex;
  LtHandle handle = nullptr;
  bool failed = false;  // cublasLtCreate failed: cuBLAS only on this device
  std::unordered_map<Key, std::unique_ptr<Plan>, KeyHash> plans;
};

// Created at a device's first product and never destroyed (at exit the CUDA context may
// already be gone).
std::array<std::atomic<DeviceState*>, kMaxCudaDevices> g_states{};

DeviceState& device_state(int device) {
  if (DeviceState* s = g_states[device].load(std::memory_order_acquire)) [[likely]]
    return *s;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (!g_states[device].load(std::memory_order_relaxed))
    g_states[device].store(new DeviceState(), std::memory_order_release);
  return *g_states[device].load(std::memory_order_relaxed);
}

bool layout(const Api& lt, Layout* out, cudaDataType type, int64_t rows, int64_t cols, int64_t ld,
            int64_t batch, int64_t batch_stride) {
  if (lt.layout_create(out, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld) !=
      kSuccess)
    return false;
  if (batch == 1) return true;
  const int32_t count = static_cast<int32_t>(batch);
  return lt.layout_set(*out, kLayoutBatchCount, &count, sizeof(count)) == kSuccess &&
         lt.layout_set(*out, kLayoutBatchStride, &batch_stride, sizeof(batch_stride)) == kSuccess;
}

// Builds the descriptors of g and asks the heuristic for one algorithm.
std::unique_ptr<Plan> make_plan(const Api& lt, LtHandle handle, const Gemm& g) {
  auto plan = std::make_unique<Plan>();
  const cudaDataType type = data_type(g.dtype);
  const int compute = g.dtype == ScalarType::Float32 && g.tf32 ? kCompute32FFastTF32 : kCompute32F;
  if (lt.desc_create(&plan->desc, compute, CUDA_R_32F) != kSuccess) {
    plan->desc = nullptr;
    return plan;
  }
  const int32_t trans_a = g.b.col_major ? kOpT : kOpN, trans_b = g.a.col_major ? kOpT : kOpN;
  const uint32_t epilogue = epilogue_of(g);
  bool ok = lt.desc_set(plan->desc, kDescTransA, &trans_a, sizeof(trans_a)) == kSuccess &&
            lt.desc_set(plan->desc, kDescTransB, &trans_b, sizeof(trans_b)) == kSuccess &&
            lt.desc_set(plan->desc, kDescEpilogue, &epilogue, sizeof(epilogue)) == kSuccess;
  // The heuristic reads the bias and aux pointers' alignment; each call sets its own pointers.
  if (ok && g.bias)
    ok = lt.desc_set(plan->desc, kDescBiasPointer, &g.bias, sizeof(g.bias)) == kSuccess;
  if (ok && g.aux) {  // laid out as D (Note [cuBLASLt matmul]: GELU_AUX_BIAS)
    const int64_t aux_ld = g.n, aux_stride = g.m * g.n;
    ok = lt.desc_set(plan->desc, kDescAuxPointer, &g.aux, sizeof(g.aux)) == kSuccess &&
         lt.desc_set(plan->desc, kDescAuxLd, &aux_ld, sizeof(aux_ld)) == kSuccess &&
         (g.batch == 1 || lt.desc_set(plan->desc, kDescAuxBatchStride, &aux_stride,
                                      sizeof(aux_stride)) == kSuccess);
  }
  // The stored matrices, column-major: a row-major (r, c) matrix is a column-major (c, r) one.
  ok = ok &&
       layout(lt, &plan->la, type, g.b.col_major ? g.k : g.n, g.b.col_major ? g.n : g.k, g.b.ld,
              g.batch, g.b.batch_stride) &&
       layout(lt, &plan->lb, type, g.a.col_major ? g.m : g.k, g.a.col_major ? g.k : g.m, g.a.ld,
              g.batch, g.a.batch_stride) &&
       layout(lt, &plan->lc, g.float_out ? CUDA_R_32F : type, g.n, g.m, g.n, g.batch, g.m * g.n);
  if (!ok) return plan;
  Pref pref = nullptr;
  if (lt.pref_create(&pref) != kSuccess) return plan;
  const uint32_t align_a = static_cast<uint32_t>(alignment(g.b.data)),
                 align_b = static_cast<uint32_t>(alignment(g.a.data)),
                 align_c = static_cast<uint32_t>(alignment(g.out));
  ok = lt.pref_set(pref, kPrefMaxWorkspace, &kMaxWorkspaceBytes, sizeof(kMaxWorkspaceBytes)) ==
           kSuccess &&
       lt.pref_set(pref, kPrefAlignA, &align_a, sizeof(align_a)) == kSuccess &&
       lt.pref_set(pref, kPrefAlignB, &align_b, sizeof(align_b)) == kSuccess &&
       lt.pref_set(pref, kPrefAlignC, &align_c, sizeof(align_c)) == kSuccess &&
       lt.pref_set(pref, kPrefAlignD, &align_c, sizeof(align_c)) == kSuccess;
  HeuristicResult result{};
  int found = 0;
  if (ok)
    ok = lt.heuristic(handle, plan->desc, plan->la, plan->lb, plan->lc, plan->lc, pref, 1, &result,
                      &found) == kSuccess &&
         found > 0 && result.state == kSuccess;
  lt.pref_destroy(pref);
  if (!ok) return plan;
  plan->algo = result.algo;
  plan->workspace = result.workspace_size;
  plan->usable = true;
  return plan;
}

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

bool decline() {
  g_fallbacks.fetch_add(1, std::memory_order_relaxed);
  return false;
}

}  // namespace

bool matmul(const Gemm& g) {
  const Api* lt = api();
  if (!lt || !fits_int(g.batch) || !fits_int(g.m) || !fits_int(g.n) || !fits_int(g.k) ||
      g.a.batch_stride < 0 || g.b.batch_stride < 0 || g.device < 0 || g.device >= kMaxCudaDevices)
    return decline();
  // The aux matrix only with GELU_AUX_BIAS, and its leading dimension (n) by Lt's rule.
  if (g.aux && (!g.bias || g.activation != BiasActivation::GeluTanh || g.n % kAuxLdMultiple != 0))
    return decline();
  if (g.accumulate && g.bias) return decline();
  DeviceGuard guard(g.device);
  DeviceState& ds = device_state(g.device);
  std::lock_guard<std::mutex> lock(ds.mutex);
  if (!ds.handle && !ds.failed) {
    LtHandle h = nullptr;
    if (lt->create(&h) == kSuccess)
      ds.handle = h;
    else
      ds.failed = true;
  }
  if (ds.failed) return decline();
  const Key key = key_of(g);
  auto it = ds.plans.find(key);
  if (it == ds.plans.end()) {
    if (ds.plans.size() >= kMaxPlans) ds.plans.clear();
    it = ds.plans.emplace(key, make_plan(*lt, ds.handle, g)).first;
  }
  Plan& plan = *it->second;
  if (!plan.usable) return decline();
  if (g.bias && lt->desc_set(plan.desc, kDescBiasPointer, &g.bias, sizeof(g.bias)) != kSuccess)
    return decline();
  if (g.aux && lt->desc_set(plan.desc, kDescAuxPointer, &g.aux, sizeof(g.aux)) != kSuccess)
    return decline();
  // The workspace: from the pool on the current stream, back to it (on that stream) after the
  // call (Note [cuBLASLt matmul]).
  Tensor workspace;
  void* ws = nullptr;
  if (plan.workspace > 0) {
    workspace = Tensor::empty({static_cast<int64_t>(plan.workspace)}, ScalarType::UInt8,
                              Device{DeviceType::CUDA, g.device});
    ws = workspace.mutable_data();
  }
  const float alpha = static_cast<float>(g.alpha), beta = g.accumulate ? 1.0f : 0.0f;
  const auto stream = reinterpret_cast<cudaStream_t>(current_stream(g.device));
  // C = D: read (beta 1) only when accumulating.
  if (lt->matmul(ds.handle, plan.desc, &alpha, g.b.data, plan.la, g.a.data, plan.lb, &beta, g.out,
                 plan.lc, g.out, plan.lc, &plan.algo, ws, plan.workspace, stream) != kSuccess) {
    plan.usable = false;  // refused: cuBLAS from now on for this key
    return decline();
  }
  g_calls.fetch_add(1, std::memory_order_relaxed);
  if (g.aux) g_aux_calls.fetch_add(1, std::memory_order_relaxed);
  return true;
}

LtStats stats() {
  LtStats s;
  s.available = api() != nullptr;
  s.calls = g_calls.load(std::memory_order_relaxed);
  s.fallbacks = g_fallbacks.load(std::memory_order_relaxed);
  s.aux_calls = g_aux_calls.load(std::memory_order_relaxed);
  for (const auto& state : g_states) {
    DeviceState* ds = state.load(std::memory_order_acquire);
    if (!ds) continue;
    std::lock_guard<std::mutex> lock(ds->mutex);
    s.cached += static_cast<int64_t>(ds->plans.size());
  }
  return s;
}

}  // namespace genesis::cuda::lt

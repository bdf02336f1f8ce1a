#pragma once
// Matrix products through cuBLAS and cuBLASLt, as the rest of genesis sees them: plain C++, no
// CUDA headers. csrc/cuda/blas.cpp loads cuBLAS at run time (Note [Loading cuBLAS]) and tries
// cuBLASLt first (csrc/cuda/blas_lt.cpp, Note [cuBLASLt matmul]); csrc/cuda/no_cuda_blas.cpp
// stands in for CPU-only builds.
#include "core/tensor.h"

namespace genesis::cuda {

// out = a @ b on out's device and current stream, for float16, bfloat16 (float32 accumulation),
// float32 (TF32 only when allow_tf32()) and float64. out is contiguous (batch, m, n); a is
// (batch, m, k) and b (batch, k, n), each with any strides: a matrix that is row- or
// column-major goes to the library as it is (any batch stride, 0 included), any other is copied
// first. k > 0. cuBLASLt when it has an algorithm (and prefer_cublaslt()), else cuBLAS.
void gemm_strided_batched(const Tensor& out, const Tensor& a, const Tensor& b);

// What cuBLASLt's epilogue does after adding the bias: nothing, ReLU, or the tanh-approximated
// GELU (the only GELU it has).
enum class BiasActivation { None, Relu, GeluTanh };

// out = act(alpha * (a @ b) + bias) in one cuBLASLt call (its bias epilogue, with ReLU or GELU
// when act asks), shapes and strides as gemm_strided_batched's, bias a contiguous (n,) vector of
// out's dtype added to every row of every matrix. With `preactivation` (only for GeluTanh; a
// contiguous tensor of out's shape and dtype) the same call also stores alpha * (a @ b) + bias
// there, the GELU's input (GELU_AUX_BIAS), which needs n to be a multiple of 8. Returns false,
// having queued nothing, when cuBLASLt cannot do it (not loaded, no algorithm, float64,
// prefer_cublaslt() off, the aux rule unmet): the caller composes it from other ops.
bool gemm_bias(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
               double alpha, BiasActivation act = BiasActivation::None,
               const Tensor* preactivation = nullptr);

// out += a @ b in one cuBLASLt call that reads and writes out in float32 (beta 1), for a and b
// of one dtype (float16, bfloat16 or float32), shapes and strides as gemm_strided_batched's, out
// float32 and contiguous: a product summed over chunks (the weight gradient of Note [Chunked
// linear cross-entropy]) never rounds to 16 bits and never exists apart from the sum. With
// !accumulate out = a @ b (beta 0: out is only written, the sum's first term). Returns false,
// having queued nothing, when cuBLASLt cannot do it: the caller composes it.
bool gemm_accumulate(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate = true);

// genesis.backends.cuda.matmul.allow_tf32: float32 products may round their inputs to TF32
// (tensor cores, about 10 bits of mantissa). Off by default, as in PyTorch; read at each call.
void set_allow_tf32(bool allow);
bool allow_tf32();
// genesis.backends.cuda.preferred_blas_library: cuBLASLt first (true, the default) or cuBLAS
// only.
void set_prefer_cublaslt(bool prefer);
bool prefer_cublaslt();

// What cuBLASLt did since the process started: for tests and for checking a GPU run.
struct LtStats {
  bool available = false;  // cuBLASLt loads (asking tries to load it)
  int64_t calls = 0;       // products it ran
  int64_t fallbacks = 0;   // products it declined (no algorithm or not loaded): cuBLAS ran them
  int64_t cached = 0;      // (shape, dtype, layout, alignment, epilogue) keys in its caches
  int64_t aux_calls = 0;   // of `calls`, those that also stored the pre-activation (GELU_AUX_BIAS)
};
LtStats lt_stats();

// The batched LU of Note [Batched small matrices] (csrc/cuda/solver.cpp): cublas<S|D>getrfBatched
// and cublas<S|D>getrsBatched (dtype float32 or float64) over `batch` column-major n x n
// matrices, on `device`'s current stream. `matrices`, `lu` and `rhs` (n x nrhs each) are device
// arrays of `batch` device pointers; ipiv (n 1-based pivots a matrix, as LAPACK's) and info (one
// a matrix: i > 0 when U(i, i) is exactly zero) are int32 device arrays. 0 <= batch; nothing
// here waits for the device.
void getrf_batched(Device device, ScalarType dtype, int n, void* const* matrices, int lda,
                   int* ipiv, int* info, int batch, const char* op);
void getrs_batched(Device device, ScalarType dtype, int n, int nrhs, void* const* lu, int lda,
                   const int* ipiv, void* const* rhs, int ldb, int batch, const char* op);

}  // namespace genesis::cuda

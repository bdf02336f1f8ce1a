#pragma once
// One matrix product through cuBLASLt, for csrc/cuda/blas.cpp: plain C++, no CUDA headers.
// csrc/cuda/blas_lt.cpp loads cuBLASLt at run time (Note [cuBLASLt matmul]);
// csrc/cuda/no_cuda_blas_lt.cpp stands in for CPU-only builds.
#include <cstdint>

#include "cuda/blas.h"

namespace genesis::cuda::lt {

// A (batch, rows, cols) operand as a BLAS reads it: row-major (unit column stride) or
// column-major (unit row stride), a leading dimension and a batch stride (0: one matrix shared
// by the batch), all in elements.
struct Matrix {
  const void* data = nullptr;
  bool col_major = false;
  int64_t ld = 0;
  int64_t batch_stride = 0;
};

// out (batch, m, n), contiguous = act(alpha * (a (batch, m, k) @ b (batch, k, n)) [+ bias (n,),
// contiguous, out's dtype, added to each row]), on `device`'s current stream; dtype float16,
// bfloat16 or float32 (TF32 when tf32). k > 0. act (ReLU or tanh GELU) only with a bias. aux
// (only with the bias and GeluTanh): also store the GELU's input, alpha * (a @ b) + bias, there,
// laid out as out. float_out: out is float32 while a and b are `dtype` (16-bit); accumulate:
// out += the product (beta 1: out is read), without a bias.
struct Gemm {
  int device = 0;
  ScalarType dtype = ScalarType::Float32;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  Matrix a, b;
  void* out = nullptr;
  double alpha = 1.0;
  const void* bias = nullptr;
  BiasActivation activation = BiasActivation::None;
  void* aux = nullptr;
  bool tf32 = false;
  bool float_out = false;
  bool accumulate = false;
};

// Queues the product and returns true, or returns false having queued nothing when cuBLASLt
// cannot run it (the library is missing, or it has no algorithm for this case).
bool matmul(const Gemm& g);

// lt_stats() of csrc/cuda/blas.h.
LtStats stats();

}  // namespace genesis::cuda::lt

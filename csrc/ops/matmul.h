#pragma once
// Matrix products with PyTorch's shape rules. Both operands must have the same dtype and device
// (no promotion); bool is not supported, nor integers on CUDA.
#include <optional>
#include <utility>

#include "core/tensor.h"
#include "cuda/blas.h"

namespace genesis::ops {

// torch.matmul: 1-D @ 1-D is a dot product (a 0-d result); a 1-D left operand gains a leading
// dim of 1 and a 1-D right operand a trailing one, which the result drops again; the dims before
// the last two broadcast. K == 0 gives zeros.
Tensor matmul(const Tensor& a, const Tensor& b);
// 2-D @ 2-D only.
Tensor mm(const Tensor& a, const Tensor& b);
// 3-D @ 3-D with equal batch sizes (no broadcasting).
Tensor bmm(const Tensor& a, const Tensor& b);

// act(alpha * (a @ b) + bias) for 2-D a (m, k) and b (k, n) and a 1-D bias (n,), all of one
// dtype and device (checked by the caller), in one cuBLASLt call with the bias (and act) as its
// epilogue (Note [cuBLASLt matmul] in csrc/cuda/blas_lt.cpp); nothing when that path does not
// apply (CPU, float64, an empty product or k == 0, no cuBLASLt or no algorithm): the caller
// composes it.
std::optional<Tensor> mm_bias(const Tensor& bias, const Tensor& a, const Tensor& b, double alpha,
                              cuda::BiasActivation act = cuda::BiasActivation::None);
// mm_bias with the tanh GELU that also gives its input: (gelu(z), z) for z = alpha * (a @ b) +
// bias, both (m, n) and contiguous, from one cuBLASLt call (GELU_AUX_BIAS); nothing where
// mm_bias gives nothing, or where n is not a multiple of 8 (cuBLASLt's rule for the kept input).
std::optional<std::pair<Tensor, Tensor>> mm_bias_gelu_keep_input(const Tensor& bias,
                                                                 const Tensor& a, const Tensor& b,
                                                                 double alpha);

// out += a @ b (out = a @ b when !accumulate: out is only written) for 2-D CUDA a (m, k) and
// b (k, n) of one dtype (float16, bfloat16, float32) and a contiguous float32 (m, n) out on their
// device, in one cuBLASLt call that reads and writes out in float32 (cuda::gemm_accumulate);
// false, having done nothing, when that path does not apply (CPU, float64, other shapes or
// dtypes, k == 0, no cuBLASLt or no algorithm): the caller composes it.
bool mm_accumulate(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate = true);

}  // namespace genesis::ops

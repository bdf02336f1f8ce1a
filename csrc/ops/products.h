#pragma once
// Vector and matrix products composed from matmul/bmm (ops/matmul.h) and elementwise ops:
// outer, dot, inner, the add*mm family, mv, kron, cross, cdist and tensordot. None loops over
// elements; each is a few whole-tensor ops in C++.
//
// Dtypes follow PyTorch: the ops that run through a matrix product (dot, inner, the add*mm
// family, mv, tensordot) need operands of one dtype, refuse bool, and refuse integers on CUDA
// (as matmul); outer and kron are products of broadcast tensors and promote like mul.
#include <optional>
#include <string>
#include <utility>

#include "core/scalar.h"
#include "core/tensor.h"

namespace genesis::ops {

// The checks of the matmul-based products: one device, one dtype, no bool, no CUDA integers.
void check_product_operands(const Tensor& a, const Tensor& b, const char* op);

// a (n) and b (m) -> (n, m), a[i] * b[j].
Tensor outer(const Tensor& a, const Tensor& b);
// Two 1-D tensors of one size -> a 0-d sum of products.
Tensor dot(const Tensor& a, const Tensor& b, const char* op = "dot");
// Sum of products over the last dims: (..a, k), (..b, k) -> (..a, ..b); a 0-d operand scales.
Tensor inner(const Tensor& a, const Tensor& b);
// beta * input + alpha * (mat1 @ mat2); input broadcasts to the product's shape. beta == 0
// ignores input's values (NaN included), as PyTorch.
Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha);
// torch._addmm_activation: relu(addmm(...)), or gelu(addmm(...)) with the GELU PyTorch's op
// computes on the device (addmm_gelu_approximate). One cuBLASLt call on CUDA when addmm would
// fuse its bias (Note [Fused matmul epilogues] in ops/products.cpp); errors named
// [_addmm_activation].
Tensor addmm_activation(const Tensor& input, const Tensor& mat1, const Tensor& mat2,
                        const Scalar& beta, const Scalar& alpha, bool use_gelu);
// _addmm_activation's pre-activation: addmm with its errors named [_addmm_activation].
Tensor addmm_preactivation(const Tensor& input, const Tensor& mat1, const Tensor& mat2,
                           const Scalar& beta, const Scalar& alpha);
// _addmm_activation(use_gelu=true) as (output, pre-activation) from one cuBLASLt call that keeps
// the GELU's input (GELU_AUX_BIAS), both contiguous of the product's shape, where that applies
// (CUDA, addmm's fused case, a width that is a multiple of 8, an algorithm); nothing elsewhere,
// where the caller composes addmm_preactivation and the GELU. Errors named [_addmm_activation].
std::optional<std::pair<Tensor, Tensor>> addmm_gelu_with_preactivation(const Tensor& input,
                                                                       const Tensor& mat1,
                                                                       const Tensor& mat2,
                                                                       const Scalar& beta,
                                                                       const Scalar& alpha);
// The approximate= of _addmm_activation's GELU for tensors like t: "none" on CPU, "tanh" on CUDA.
const char* addmm_gelu_approximate(const Tensor& t);
// beta * input + alpha * sum over the batch of batch1[b] @ batch2[b].
Tensor addbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha);
// beta * input + alpha * bmm(batch1, batch2).
Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha);
// beta * input + alpha * (mat @ vec).
Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha);
Tensor mv(const Tensor& mat, const Tensor& vec);
// mv's checks and product, errors named after op.
Tensor matrix_vector(const Tensor& mat, const Tensor& vec, const char* op);
// The in-place forms' target checks: writable, and no expanded (shared) elements.
void check_product_target(const Tensor& self, const char* op);
// The in-place forms: the result must have self's shape; written into self.
void add_product_(const Tensor& self, const Tensor& result, const char* op);
// The Kronecker product of tensors of any ndim (the shorter one gains leading 1s).
Tensor kron(const Tensor& a, const Tensor& b);
// The 3-vector cross product along dim (torch.cross: the first dim of size 3 when absent;
// linalg.cross passes -1). Same ndim, broadcasting sizes.
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim,
             const char* op = "cross");
// cross's checks: the dim it takes (wrapped), and the broadcast shape of a and b in `shape`.
int64_t cross_dim(const Tensor& a, const Tensor& b, std::optional<int64_t> dim, const char* op,
                  Shape& shape);
// p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M) -> (..., P, R).
// compute_mode: "use_mm_for_euclid_dist_if_necessary" (p == 2 and P or R > 25),
// "use_mm_for_euclid_dist" or "donot_use_mm_for_euclid_dist".
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, const std::string& compute_mode);
// Contracts dims_a of a with dims_b of b (pairwise, equal sizes); the result has a's other dims
// then b's other dims.
Tensor tensordot(const Tensor& a, const Tensor& b, const Shape& dims_a, const Shape& dims_b);
// tensordot with the last n dims of a against the first n of b.
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t n);

}  // namespace genesis::ops

#pragma once
// Matrix-shaped selections: the triangles (tril, triu), their indices, and diagonals in and out
// of matrices (diag, diag_embed). The operands are batches of matrices in the last two dims
// (diag_embed: any two dims).
#include "core/tensor.h"

namespace genesis::ops {

// The lower (upper) triangle of each matrix, diagonal `k` and below (above) kept, the rest 0.
Tensor tril(const Tensor& t, int64_t k);
Tensor triu(const Tensor& t, int64_t k);
void tril_(const Tensor& t, int64_t k);
void triu_(const Tensor& t, int64_t k);
// The (row, col) indices of the lower (upper) triangle of a rows x cols matrix as a 2 x N
// tensor, in row-major order.
Tensor tril_indices(int64_t rows, int64_t cols, int64_t offset, ScalarType dtype, Device device);
Tensor triu_indices(int64_t rows, int64_t cols, int64_t offset, ScalarType dtype, Device device);
// A 1-d tensor: the square matrix with it on diagonal k. A 2-d tensor: a copy of diagonal k.
Tensor diag(const Tensor& t, int64_t k);
// Each vector along the last dim placed on diagonal `offset` of new dims dim1 x dim2.
Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);

}  // namespace genesis::ops

#pragma once
// PyTorch's index-family functions (gather, index_select, take, masked_fill, scatter, ...) as
// index plans: each builds the index key that says what it means and runs it through the
// planner and its kernels (ops/indexing.h), so every device, dtype and layout the planner
// handles, and its bounds checks, come with it (Note [Index-family ops]).
#include <optional>
#include <vector>

#include "core/scalar.h"
#include "core/tensor.h"

namespace genesis::ops {

Tensor index_select(const Tensor& input, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& input, int64_t dim, const Tensor& index);
// dim absent: both flattened.
Tensor take_along_dim(const Tensor& input, const Tensor& indices, std::optional<int64_t> dim);
Tensor take(const Tensor& input, const Tensor& index);
Tensor masked_select(const Tensor& input, const Tensor& mask);

// A new tensor: self with value where mask is true (Note [masked_fill out of place]).
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);  // 0-d value

// The in-place writers; each returns nothing (the caller returns self).
void masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value);
void masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value);  // 0-d value
void masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source);
void index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
void index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// scatter_(dim, index, src): self[index[i][j]][j] = src[i][j] (dim 0); src a tensor or a value
// (a 0-d tensor).
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
void scatter_value_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);

// The value of a 0-d tensor (read on the host: one wait on CUDA).
Scalar scalar_of(const Tensor& value, const char* op);

// Coordinates of the nonzero elements: one int64 tensor per dim, in row-major order.
std::vector<Tensor> nonzero(const Tensor& input);

}  // namespace genesis::ops

#pragma once
// Reductions with PyTorch's signatures and dtype rules. Note [Reduction front end]: the reduced
// dims are brought into one contiguous block ([outer, reduce, inner]; a copy only when the
// input's layout does not allow it), then one device loop runs (csrc/cpu/reduce.h,
// csrc/cuda/reduce.h). `dims` empty or absent means every dim.
#include <optional>
#include <utility>

#include "core/tensor.h"

namespace genesis::ops {

using Dims = std::optional<Shape>;

Tensor sum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor mean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor prod(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim, bool take_sqrt);
Tensor all(const Tensor& t, const Dims& dims, bool keepdim);
Tensor any(const Tensor& t, const Dims& dims, bool keepdim);
// max()/min() of every element (0-d result).
Tensor extreme(const Tensor& t, bool is_max);
// max(dim)/min(dim): values and first indices.
std::pair<Tensor, Tensor> extreme_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max);
Tensor arg_extreme(const Tensor& t, std::optional<int64_t> dim, bool keepdim, bool is_max);
// amax/amin: the largest (smallest) value over dims, without indices; an empty reduced dim raises.
Tensor amax(const Tensor& t, const Dims& dims, bool keepdim, bool is_max);
// (amin, amax) over dims, in one read of the input where the device has a pass for it (Note [Min
// and max in one pass] in cpu/min_max.cpp; MinMaxReducer on CUDA).
std::pair<Tensor, Tensor> aminmax(const Tensor& t, const Dims& dims, bool keepdim);
// sqrt(sum(x * x)) over dims in one pass (the 2-norm), floating dtypes; 16-bit floats accumulate
// in float32.
Tensor norm2(const Tensor& t, const Dims& dims, bool keepdim);
// sum(exp(t - shift)) over dims, kept as size-1 dims: `shift` holds one value per output (the
// shape of the result, t's dtype); one pass, no exp(t - shift) tensor (Note [Fused logsumexp]).
Tensor sum_exp(const Tensor& t, const Dims& dims, const Tensor& shift);
Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype, bool log);
// softmax's (or log_softmax's) gradient from its output y and the output's gradient, by the
// CPU's row kernel (Note [CPU row softmax]) where it applies (CPU, float32 or float64, dim the
// innermost not of size 1); undefined elsewhere, where the caller composes it.
Tensor softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim, bool log);

}  // namespace genesis::ops

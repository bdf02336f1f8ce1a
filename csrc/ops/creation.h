#pragma once
// Factory ops. dtype is resolved by the caller (PyTorch's inference rules live in the bindings).
#include "core/scalar.h"
#include "core/tensor.h"

namespace genesis::ops {

Tensor full(const Shape& sizes, const Scalar& value, ScalarType dtype, Device device,
            const char* op = "full");
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype,
              Device device);
// The dtype arange infers: int64 when start, end and step are integers, else the default float.
ScalarType arange_dtype(const Scalar& start, const Scalar& end, const Scalar& step);
Tensor linspace(double start, double end, int64_t steps, ScalarType dtype, Device device);
Tensor eye(int64_t n, int64_t m, ScalarType dtype, Device device);

}  // namespace genesis::ops

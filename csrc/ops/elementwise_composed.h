#pragma once
// Elementwise ops composed from the kernels of ops/elementwise.h: round with decimals, the
// float-class predicates (isnan ...) and writing a result into an out= tensor.
#include <cstdint>

#include "core/tensor.h"

namespace genesis::ops {

// round(decimals=d): PyTorch's rint(x * 10^d) / 10^d (rint(x / 10^-d) * 10^-d for d < 0),
// computed in float32 for the 16-bit floats and rounded once.
Tensor round(const Tensor& a, int64_t decimals, const char* name);
void round_(const Tensor& self, int64_t decimals, const char* name);

// Bool results; integer and bool inputs are never NaN or infinite.
Tensor isnan(const Tensor& a);
Tensor isinf(const Tensor& a);
Tensor isposinf(const Tensor& a);
Tensor isneginf(const Tensor& a);
Tensor isfinite(const Tensor& a);

// Note [out= arguments]: writes `result` into `out` (same device; result's dtype must cast to
// out's under the in-place rule; out is resized to the result's shape when it differs) and
// returns nothing; the caller returns out itself. Python callers go through
// python::write_out_warned, which gives PyTorch's warning for resizing a non-empty out.
void write_out(Tensor& out, const Tensor& result, const char* name);

}  // namespace genesis::ops

#pragma once
// Scans on the CPU (Note [Scans] in vocab/scan_functors.h). `in` and the outputs are contiguous
// tensors of one shape, seen as (outer, len, inner) with the scan along len; the front end
// (ops/scan.cpp) gives `in` the result's dtype first.
#include <cstdint>

#include "core/tensor.h"
#include "vocab/scan_functors.h"

namespace genesis::cpu {

// out = the running sum / product / log-sum-exp of in along len.
void scan(ops::ScanOp op, const Tensor& in, const Tensor& out, int64_t outer, int64_t len,
          int64_t inner);
// values, indices (int64) = the running max (min) of in along len and where it was found.
void scan_extreme(bool is_max, const Tensor& in, const Tensor& values, const Tensor& indices,
                  int64_t outer, int64_t len, int64_t inner);

}  // namespace genesis::cpu

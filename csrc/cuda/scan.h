#pragma once
// The scans on CUDA devices (Note [Scans] in vocab/scan_functors.h, Note [Scan layout] in
// ops/scan.cpp): `rows` is a contiguous CUDA tensor whose last dim (or its single item, 0-d)
// of `len` items is scanned, the outputs contiguous of its shape. One CUB scan by key covers
// every row (kernels/scan.cu); scratch comes from genesis's pool; the current stream.
#include <cstdint>

#include "core/tensor.h"
#include "vocab/scan_functors.h"

namespace genesis::cuda {

void scan_rows(ops::ScanOp op, const Tensor& rows, const Tensor& out, int64_t len);
void scan_extreme_rows(bool is_max, const Tensor& rows, const Tensor& values, const Tensor& indices,
                       int64_t len);

}  // namespace genesis::cuda

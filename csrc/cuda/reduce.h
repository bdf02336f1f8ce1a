#pragma once
// Reductions on a CUDA device (csrc/cpu/reduce.h has the same on the CPU). `in` is contiguous,
// seen as [outer, reduce, inner]; `out` (values; undefined for a bare argmax) and `index`
// (int64, argmax/argmin) are contiguous [outer, inner]; `center` (SumSquares) holds one value
// per output in in's dtype; `maxs` (MinMax, aminmax in one pass) takes the maxima while `out`
// takes the minima. Current stream.
#include "core/tensor.h"
#include "vocab/reducers.h"

namespace genesis::cuda {

void reduce(ops::ReduceOp op, const Tensor& in, const ops::ReduceShape& shape, const Tensor& out,
            const Tensor& index, const Tensor& center, const ops::ReduceFinish& finish,
            const Tensor& maxs = Tensor());

}  // namespace genesis::cuda

#pragma once
// Reductions on the CPU, with the signature of csrc/cuda/reduce.h.
#include "core/tensor.h"
#include "vocab/reducers.h"

namespace genesis::cpu {

void reduce(ops::ReduceOp op, const Tensor& in, const ops::ReduceShape& shape, const Tensor& out,
            const Tensor& index, const Tensor& center, const ops::ReduceFinish& finish);

}  // namespace genesis::cpu

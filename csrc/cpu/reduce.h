#pragma once
// Reductions on the CPU, with the signature of csrc/cuda/reduce.h.
#include "core/tensor.h"
#include "vocab/reducers.h"

namespace genesis::cpu {

void reduce(ops::ReduceOp op, const Tensor& in, const ops::ReduceShape& shape, const Tensor& out,
            const Tensor& index, const Tensor& center, const ops::ReduceFinish& finish);

// Whether reduce() of `rows` contiguous rows takes each row in one piece (a few long rows are
// split over the threads instead, and their sums added in another order).
bool reduce_runs_whole_rows(int64_t rows, int64_t row_size);

// out[j] = the reduction of in[j * row_size, (j + 1) * row_size) for j < rows, on this thread,
// each row exactly as reduce() takes a whole row (fused row groups: fusion/cpu_executor.cpp).
// `in` and `out` hold items of `dtype`; not for the arg reductions. `center` (SumSquares: var's
// second pass) holds each row's centre, as reduce()'s centre tensor does.
void reduce_rows(ops::ReduceOp op, ScalarType dtype, const void* in, int64_t rows, int64_t row_size,
                 void* out, const ops::ReduceFinish& finish, const void* center = nullptr);

}  // namespace genesis::cpu

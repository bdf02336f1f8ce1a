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

// Note [Column reductions in pieces] (reduce.cpp): reduce() of the leading dims (outer 1,
// `rows` rows of n columns) fed a piece of rows at a time, for fused column groups
// (fusion/cpu_executor.cpp). acc holds n accumulators of column_accumulator_size() bytes;
// begin_columns sets them, accumulate_columns combines `count` contiguous rows of n items of
// `dtype` (the pieces in order, each column_piece_rows() rows but the last, so a float32 sum adds
// as reduce()'s kernel does), store_columns writes the n results as reduce() does. Sum, Prod,
// Max and Min only (no centre, no index).
int64_t column_piece_rows();
size_t column_accumulator_size(ops::ReduceOp op, ScalarType dtype);
void begin_columns(ops::ReduceOp op, ScalarType dtype, int64_t n, void* acc);
void accumulate_columns(ops::ReduceOp op, ScalarType dtype, const void* rows, int64_t count,
                        int64_t n, void* acc);
void store_columns(ops::ReduceOp op, ScalarType dtype, const void* acc, int64_t n, void* out,
                   const ops::ReduceFinish& finish);

}  // namespace genesis::cpu

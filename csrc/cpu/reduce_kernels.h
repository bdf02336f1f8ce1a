#pragma once
// Float32 inner loops of the CPU reductions (csrc/cpu/reduce.cpp), compiled for AVX-512, AVX2
// and a baseline and picked at run time, since the library is built without -march flags.
#include <cstdint>

#include "vocab/reducers.h"

namespace genesis::cpu {

// acc[i] += in[k * stride + i] summed over rows k < rows, for i < n. The sums run in float
// vector lanes over runs of kColumnSumRows rows (from row 0) and each run is added to acc in
// double, so the error stays that of a short float sum however many rows there are; a caller
// that passes the rows a run at a time gets the same sums.
constexpr int64_t kColumnSumRows = 64;
void column_sum_f32(const float* in, int64_t rows, int64_t stride, int64_t n, double* acc);

// acc[i] += double(in[k * stride + i] - centre[i])^2 summed over rows k < rows: var's second
// pass, centred in float and squared and summed in double as SumSquaresReducer<double> does.
void column_sum_squares_f32(const float* in, int64_t rows, int64_t stride, int64_t n,
                            const float* centre, double* acc);

// out[i] = the extreme of column i (is_max: the largest) and the first row holding it, with NaN
// beating every number and the first NaN winning, as ArgReducer; rows < 2^31.
void column_arg_extreme_f32(const float* in, int64_t rows, int64_t stride, int64_t n, bool is_max,
                            ops::ValueIndex<float>* out);

// The first index of the largest (is_max) or smallest element of x[0, n), n >= 1, where NaN
// beats every number and the first NaN wins: ArgReducer's answer (Note [Reducers]).
int64_t arg_extreme_f32(const float* x, int64_t n, bool is_max);

// The lanes of a float32 row sum: lanes[e] = the double sum of x[e], x[e + kRowLanes], ... in
// order, the elements past the last whole group of kRowLanes added to lanes[0] (the generic row
// loop of cpu/reduce.cpp, whose fold of the lanes the caller does).
constexpr int kRowLanes = 8;
void row_sum_f32(const float* x, int64_t n, double* lanes);
// The same lanes of double(x[i] - centre)^2, x[i] - centre rounded to float first (the row loop
// with SumSquaresReducer<double>: norm(), var's second pass; centre 0 without one).
void row_sum_squares_f32(const float* x, int64_t n, float centre, double* lanes);

}  // namespace genesis::cpu

#pragma once
// CUDA sorting and run finding (cpu/sort.h's operations on CUDA tensors; Note [CUDA row sort]
// in kernels/sort.cu). Current stream.
#include "core/tensor.h"

namespace genesis::cuda {

// `sorted_values`, when given, receives the sorted values (Note [Values from keys]).
void sort_rows(const Tensor& values, const Tensor& indices, bool descending,
               const Tensor* sorted_values = nullptr);
void mode_rows(const Tensor& sorted, const Tensor& order, const Tensor& values_out,
               const Tensor& indices_out);
// The positions (int64, k of them) that a stable sort of the contiguous 1-d `row`, descending
// when `largest`, puts first, by a radix select (Note [Radix select] in kernels/topk.cu); returns
// false, doing nothing, for keys wider than 32 bits or rows of 2^32 items or more.
bool select_top_row(const Tensor& row, int64_t k, bool largest, const Tensor& positions);
// The sorted distinct values of the contiguous 1-d integer (or bool) `values` into `unique_out`
// (its dtype and size), their number into `num_out` (one int64), and their counts into
// `counts_out` (n int64) when given; only key bits below `end_bit` are sorted on (-1: all; Note
// [Unique of integers] in kernels/unique.cu).
void unique_integers(const Tensor& values, int end_bit, const Tensor& unique_out,
                     const Tensor* counts_out, const Tensor& num_out);
// The same for contiguous 1-d floats, without counts (Note [Unique of floats] in
// kernels/unique.cu): every NaN is kept; a run of zeros is one value. `num_out` holds two int64:
// the count, then how many NaNs with the sign bit set lead the values (to be moved last).
void unique_floats(const Tensor& values, const Tensor& unique_out, const Tensor& num_out);

}  // namespace genesis::cuda

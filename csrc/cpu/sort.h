#pragma once
// CPU sorting and run finding behind ops/sort.cpp, in the order of Note [Sort keys].
#include "core/tensor.h"

namespace genesis::cpu {

// Stable sort of each row of `values` (contiguous, [rows, cols] viewed from its last dim, any
// dtype): `indices` (int64, contiguous, the same shape) receives, for each row, the positions of
// its items in ascending (or descending) order; equal items keep their input order.
// `sorted_values` (contiguous, values' dtype and shape), when given, receives the sorted values,
// decoded from the sorted keys (Note [Values from keys] in cpu/sort.cpp).
void sort_rows(const Tensor& values, const Tensor& indices, bool descending,
               const Tensor* sorted_values = nullptr);

// The mode of each row of `sorted` (contiguous, rows sorted ascending) whose items came from the
// positions `order` (int64, same shape): the value of the longest run of equal items (NaNs are
// never equal), the smallest such value on a tie, and the largest position among its items
// (PyTorch's choice). `values_out` (sorted's dtype) and `indices_out` (int64) hold one per row.
void mode_rows(const Tensor& sorted, const Tensor& order, const Tensor& values_out,
               const Tensor& indices_out);

}  // namespace genesis::cpu

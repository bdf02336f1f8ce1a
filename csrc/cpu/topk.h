#pragma once
// CPU top k along rows behind ops/sort.cpp's topk, in the order of Note [Sort keys].
#include "core/tensor.h"

namespace genesis::cpu {

// The first k positions of each row's stable sort (what sort_rows would give), in order, for
// `values` as in sort_rows and `indices` (int64, contiguous, [rows, k]); the rest of each row
// is not sorted (Note [Top k by a running bound], Note [Top k by selection]).
void top_rows(const Tensor& values, int64_t k, bool descending, const Tensor& indices);

}  // namespace genesis::cpu

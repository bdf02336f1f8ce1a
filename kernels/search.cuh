#pragma once
// Host launcher for the binary search behind searchsorted (device code in search.cu).
#include <cstdint>

namespace genesis::kernels {

// cpu/search.h's search_sorted on device pointers: `total` values in rows of `m`, searched in
// `rows_sorted` (1 or the values' row count) sorted rows of `n` items of dtype code `dtype`;
// `out` is int32 when `out_int32`, else int64. On `stream` (a cudaStream_t).
void launch_search_sorted(int dtype, const void* sorted, const void* values, void* out,
                          bool out_int32, int64_t rows_sorted, int64_t n, int64_t total, int64_t m,
                          bool right, void* stream);

}  // namespace genesis::kernels

#pragma once
// Host launchers for sorting rows with CUB (device code in sort.cu, Note [CUDA row sort]).
#include <cstddef>
#include <cstdint>

namespace genesis::kernels {

// Stable sort of `rows` contiguous rows of `cols` items of dtype code `dtype` at `values`:
// `indices` (int64, rows * cols) receives each row's positions in sorted order (Note [Sort
// keys]); `sorted_values` (optional, rows * cols items) the sorted values themselves (Note
// [Values from keys]). With `scratch` null, only sets `*scratch_bytes` to the scratch the sort
// needs; then call again with that much device memory. On `stream` (a cudaStream_t); returns a
// cudaError_t as int (0 on success).
int sort_rows(int dtype, const void* values, int64_t* indices, void* sorted_values, int64_t rows,
              int64_t cols, bool descending, void* scratch, size_t* scratch_bytes, void* stream);

// The mode of each sorted row (cpu/sort.h's mode_rows): `sorted` holds rows sorted ascending of
// dtype code `dtype`, `order` their original positions; one value and one int64 position per row.
void launch_mode_rows(int dtype, const void* sorted, const int64_t* order, void* values_out,
                      int64_t* indices_out, int64_t rows, int64_t cols, void* stream);

}  // namespace genesis::kernels

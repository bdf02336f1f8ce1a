#pragma once
// Host launchers for the radix select of one long row (device code in topk.cu, Note [Radix
// select]).
#include <cstddef>
#include <cstdint>

namespace genesis::kernels {

// Whether select_top_row takes dtype code `dtype` (keys of at most 32 bits).
bool select_top_supported(int dtype);

// The positions of the first k items of the contiguous row `row` (n items of dtype code `dtype`,
// n < 2^32) in the order of a stable sort, descending when `largest`: the positions a stable sort
// would put first (Note [Sort keys]). With `scratch` null, only sets `*scratch_bytes`; then call
// again with that much device memory. On `stream`; returns a cudaError_t as int.
int select_top_row(int dtype, const void* row, int64_t n, int64_t k, bool largest,
                   int64_t* positions, void* scratch, size_t* scratch_bytes, void* stream);

}  // namespace genesis::kernels

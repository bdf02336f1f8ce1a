#pragma once
// Host launchers for bincount's kernels without weights (device code in count.cu).
#include <cstdint>

namespace genesis::kernels {

// The smallest and largest of `n` (> 0) int32 or int64 items (`is_int64`) at `values`, written
// as int64 to range[0] and range[1]. `partials` holds 2 * value_range_blocks(...) int64 words.
// On `stream` (a cudaStream_t).
int64_t value_range_blocks(int64_t n, int sm_count);
void launch_value_range(const void* values, bool is_int64, int64_t n, int64_t* partials,
                        int64_t* range, int sm_count, void* stream);

// counts[v] += 1 (int64 counts, zeroed by the caller) for each of the `n` items v at `values`
// that lies in [0, bins); items outside are skipped.
void launch_count_values(const void* values, bool is_int64, int64_t n, int64_t* counts,
                         int64_t bins, int sm_count, void* stream);

}  // namespace genesis::kernels

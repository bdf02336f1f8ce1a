#pragma once
// Host launcher for the positions of a 1-d mask's true items (device code in nonzero.cu).
#include <cstddef>
#include <cstdint>

namespace genesis::kernels {

// out[k] = the position of the k-th true item of the contiguous mask of n items, in order, by
// CUB's flagged select over the positions (one pass; `out` holds the count, known beforehand).
// With `scratch` null, only sets `*scratch_bytes`; then call again with that much device memory.
// On `stream`; returns a cudaError_t as int.
int select_true_positions(const bool* mask, int64_t n, int64_t* out, void* scratch,
                          size_t* scratch_bytes, void* stream);

}  // namespace genesis::kernels

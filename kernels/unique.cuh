#pragma once
// Host launchers for unique() of integers and of floats with CUB (device code in unique.cu, Note
// [Unique of integers], Note [Unique of floats]).
#include <cstddef>
#include <cstdint>

namespace genesis::kernels {

// The sorted distinct values of `n` integers of dtype code `dtype` (bool or an integer type) at
// `values` go to `unique_out` (n items of room), their number to `*num_out` (device memory) and,
// when `counts_out` is given (n int64 of room), how often each occurs. Only the key bits below
// `end_bit` are sorted on (-1: all of them): every item must agree above it. With `scratch`
// null, only sets `*scratch_bytes`; then call again with that much device memory. On `stream`
// (a cudaStream_t); returns a cudaError_t as int (0 on success).
int unique_integers(int dtype, const void* values, int64_t n, int end_bit, void* unique_out,
                    int64_t* counts_out, int64_t* num_out, void* scratch, size_t* scratch_bytes,
                    void* stream);

// The same for floats (dtype code float16, bfloat16, float32 or float64), without counts (Note
// [Unique of floats]): every NaN is kept; -0.0 and +0.0 are one value. `num_out` has room for
// two: the number of values, then how many NaNs with the sign bit set lead them, which the
// caller moves last.
int unique_floats(int dtype, const void* values, int64_t n, void* unique_out, int64_t* num_out,
                  void* scratch, size_t* scratch_bytes, void* stream);

}  // namespace genesis::kernels

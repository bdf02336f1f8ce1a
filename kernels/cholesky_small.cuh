#pragma once
// Host launcher for the Cholesky factorisation of a batch of small matrices, one block per
// matrix in shared memory (device code in cholesky_small.cu; Note [Small Cholesky in shared
// memory] there).
#include <cstdint>

namespace genesis::kernels {

// The largest order it takes, and the largest it factors with a quarter of the threads or
// fewer (an 8 x 8 grid, 4 x 4 up to 16: several matrices a block, Note [Small Cholesky in
// shared memory]).
constexpr int kSmallCholeskyMaxOrder = 64;
constexpr int kSmallCholeskyNarrowOrder = 32;

// potrf on `batch` contiguous n x n matrices (n <= kSmallCholeskyMaxOrder) of float32 or float64
// (`is_double`) at `a`, with cuSOLVER's conventions: `colmajor_lower` reads and writes the
// column-major lower triangle (the row-major upper one), else the other; the other triangle is
// set to zero (potrf leaves it as it was); info[b] is 0, or the order of matrix b's first
// leading minor that is not positive-definite (its factorisation stops there). On `stream` (a
// cudaStream_t).
void launch_cholesky_small(void* a, bool is_double, int n, int64_t batch, bool colmajor_lower,
                           int* info, void* stream);

}  // namespace genesis::kernels

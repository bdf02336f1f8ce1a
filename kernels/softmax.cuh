#pragma once
// Host launchers for the fused row softmax and row logsumexp (device code in softmax.cu).
#include <cstdint>

namespace genesis::kernels {

constexpr int64_t kSoftmaxWarpRowMax = 1024;  // longer rows take a block, or several

// out[r, :] = softmax(in[r, :]) (log_softmax when `log`) for `rows` contiguous rows of `cols`
// items of dtype code `dtype` (a floating point type), computed in float (double for float64),
// on `stream` (a cudaStream_t). Rows longer than kSoftmaxWarpRowMax are cut into `chunks`
// blocks each when chunks > 1; `workspace` then holds 2 * rows * chunks values of the compute
// type (double for float64, else float).
void launch_softmax_rows(int dtype, const void* in, void* out, int64_t rows, int64_t cols, bool log,
                         int64_t chunks, void* workspace, void* stream);

// out[r] = log(sum(exp(in[r, :]))) for `rows` contiguous rows of `cols` <= kSoftmaxWarpRowMax
// items (Note [Fused row logsumexp]); `out` holds `rows` items of the same dtype.
void launch_logsumexp_rows(int dtype, const void* in, void* out, int64_t rows, int64_t cols,
                           void* stream);

}  // namespace genesis::kernels

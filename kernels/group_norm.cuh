#pragma once
// Host launchers for the fused group norm (device code and Note [Fused group norm kernels] in
// group_norm.cu).
#include <cstdint>

namespace genesis::kernels {

// `rows` = N * groups contiguous rows of `per` channels of `spatial` items each, of dtype code
// `dtype` (a floating point type): row r's channel j is channel (r % groups) * per + j of w and
// b (null: absent), which hold groups * per items. y = (x - mean[r]) * rstd[r] * w[c] + b[c],
// computed in float (double for float64); mean and rstd receive each row's statistics in that
// compute type. On `stream` (a cudaStream_t).
void launch_group_norm_forward(int dtype, const void* x, const void* w, const void* b, void* y,
                               void* mean, void* rstd, int64_t rows, int64_t groups, int64_t per,
                               int64_t spatial, double eps, void* stream);

// dx (null: not wanted) from dy, x, the saved statistics and w (null: none); dw[c] and db[c]
// (each null when not wanted) are the sums over samples and items of dy * xhat and dy, in x's
// dtype. `partial` holds 2 * rows * per items of the compute type (each sample's and channel's
// sums, added over the samples in a fixed order). rows >= 1.
void launch_group_norm_backward(int dtype, const void* dy, const void* x, const void* mean,
                                const void* rstd, const void* w, void* dx, void* dw, void* db,
                                void* partial, int64_t rows, int64_t groups, int64_t per,
                                int64_t spatial, void* stream);

}  // namespace genesis::kernels

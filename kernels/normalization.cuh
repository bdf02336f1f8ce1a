#pragma once
// Host launchers for the fused layer norm and RMS norm over contiguous rows (device code and
// Note [Fused row normalization kernels] in normalization.cu).
#include <cstdint>

namespace genesis::kernels {

// y[r, :] = (x[r, :] - mean[r]) * rstd[r] * w + b for `rows` rows of `cols` items of dtype code
// `dtype` (a floating point type), w and b optional (null), computed in float (double for
// float64). mean and rstd receive each row's statistics in that compute type; for RMS norm
// (rms) the mean is 0 and `mean` is null. On `stream` (a cudaStream_t).
void launch_row_norm_forward(int dtype, const void* x, const void* w, const void* b, void* y,
                             void* mean, void* rstd, int64_t rows, int64_t cols, double eps,
                             bool rms, void* stream);

// The number of blocks the backward's row kernel runs on `device_sms` multiprocessors for these
// tensors (their alignment picks the kernel): the workspace holds 2 * blocks * cols items of the
// compute type.
int64_t row_norm_backward_blocks(int dtype, int grad_dtype, const void* dy, const void* x,
                                 const void* w, const void* dx, const void* add, int64_t rows,
                                 int64_t cols, bool rms, int device_sms);

// dx (null: not wanted) from dy, x, the saved statistics and w (null: none), plus `add` (null:
// nothing; rows like dx, added as eager's addition would); dw = sum over rows of dy * xhat and
// db = sum of dy (each null when not wanted), in x's dtype. dy's dtype `grad_dtype` is x's, or
// float16/bfloat16 beside float32 x (read widened, as a cast to float32 would give it). rows >= 1.
void launch_row_norm_backward(int dtype, int grad_dtype, const void* dy, const void* x,
                              const void* mean, const void* rstd, const void* w, void* dx,
                              const void* add, void* dw, void* db, void* workspace, int64_t blocks,
                              int64_t rows, int64_t cols, bool rms, void* stream);

}  // namespace genesis::kernels

#pragma once
// Host launchers for the fused batch norm over (N, C, S) inputs (device code and Note [Fused
// batch norm kernels] in batch_norm.cu). x, y, dy and dx have dtype code `dtype`; the weight,
// bias, running statistics and the weight's and bias's gradients `param_dtype` (`dtype`, or
// float32 for a 16-bit `dtype`, as under autocast); mean, invstd and the workspace hold the
// compute type (float, double for float64).
#include <cstdint>

namespace genesis::kernels {

// rows: the memory is channels-last, (N * S) rows of C items; else (N, C, S) planes.
struct ChannelDims {
  int64_t n, c, s;
  bool rows = false;
};

// Blocks per channel the reductions use: the workspace holds c * parts * 2 + c * 3 items.
int64_t batch_norm_parts(ChannelDims d, int device_sms);

// mean[c], invstd[c] over N and S; the running statistics (null: none) move by `momentum`.
void launch_batch_norm_stats(int dtype, int param_dtype, const void* x, ChannelDims d,
                             int64_t parts, void* workspace, double eps, double momentum,
                             void* mean, void* invstd, void* running_mean, void* running_var,
                             void* stream);

// y = (x - mean[c]) * invstd[c] * w[c] + b[c] (w, b null: 1, 0). `parts`: the statistics'
// (batch_norm_parts), whose planes still in L2 go first (Note [Batch norm's elementwise planes]).
void launch_batch_norm_apply(int dtype, int param_dtype, const void* x, ChannelDims d,
                             int64_t parts, const void* mean, const void* invstd, const void* w,
                             const void* b, void* y, void* stream);

// dx, dw, db (each null when not wanted); `training`: the statistics are the batch's.
void launch_batch_norm_backward(int dtype, int param_dtype, const void* dy, const void* x,
                                ChannelDims d, int64_t parts, void* workspace, const void* mean,
                                const void* invstd, const void* w, bool training, void* dx,
                                void* dw, void* db, void* stream);

}  // namespace genesis::kernels

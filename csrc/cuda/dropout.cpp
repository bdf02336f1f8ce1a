#include "cuda/dropout.h"

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/dropout.cuh"

namespace genesis::cuda {

void fused_dropout(const Tensor& x, const Tensor& out, const Tensor& mask, float keep, double scale,
                   const PhiloxArgs& rng) {
  if (x.numel() == 0) return;
  const int device = x.device().index;
  DeviceGuard guard(device);
  kernels::launch_fused_dropout(x.data(), out.mutable_data(), mask.mutable_data_as<bool>(),
                                static_cast<int>(x.dtype()), x.numel(), keep, scale, rng.seed,
                                rng.offset, rng.state,
                                reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void dropout_masked_scale(const Tensor& grad, const Tensor& mask, const Tensor& out, double scale) {
  if (grad.numel() == 0) return;
  const int device = grad.device().index;
  DeviceGuard guard(device);
  kernels::launch_dropout_masked_scale(grad.data(), mask.data_as<bool>(), out.mutable_data(),
                                       static_cast<int>(grad.dtype()), grad.numel(), scale,
                                       reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

#include "cuda/grad_scaling.h"

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/grad_scaling.cuh"

namespace genesis::cuda {

void non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                   const Tensor& inv_scale) {
  if (grads.empty()) return;
  int device = found_inf.device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  int dtype = static_cast<int>(grads[0].dtype());
  float* found = found_inf.mutable_data_as<float>();
  const float* inv = inv_scale.data_as<float>();
  kernels::ScaleTable table;
  table.first_chunk[0] = 0;
  auto flush = [&] {
    if (table.tensors == 0) return;
    kernels::launch_unscale(table, dtype, found, inv, stream);
    GENESIS_CUDA_CHECK(cudaGetLastError());
    table.tensors = 0;
  };
  for (const Tensor& g : grads) {
    int64_t n = g.numel();
    int t = table.tensors++;
    table.numel[t] = n;
    table.first_chunk[t + 1] =
        table.first_chunk[t] + (n + kernels::kScaleChunk - 1) / kernels::kScaleChunk;
    table.data[t] = g.mutable_data();
    // A grid stays well under its 2^31 - 1 blocks.
    if (table.tensors == kernels::ScaleTable::kMaxTensors ||
        table.first_chunk[table.tensors] > (int64_t{1} << 30))
      flush();
  }
  flush();
}

void update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                   double growth_factor, double backoff_factor, int growth_interval) {
  int device = scale.device().index;
  DeviceGuard guard(device);
  kernels::launch_update_scale(scale.mutable_data_as<float>(),
                               growth_tracker.mutable_data_as<int32_t>(),
                               found_inf.data_as<float>(), growth_factor, backoff_factor,
                               growth_interval, reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

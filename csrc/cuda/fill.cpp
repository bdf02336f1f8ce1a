#include "cuda/fill.h"

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/fill.cuh"

namespace genesis::cuda {

void fill(void* dst, int64_t count, int itemsize, uint64_t pattern, int device_index) {
  if (count == 0) return;
  DeviceGuard guard(device_index);
  kernels::launch_fill(dst, count, itemsize, pattern,
                       reinterpret_cast<void*>(current_stream(device_index)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

namespace genesis::cuda {

void sequence_f64(const Tensor& out, double start, double step, double end, int64_t half) {
  if (out.numel() == 0) return;
  int device = out.device().index;
  DeviceGuard guard(device);
  kernels::launch_sequence_f64(out.mutable_data_as<double>(), out.numel(), start, step, end, half,
                               reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void sequence_i64(const Tensor& out, int64_t start, int64_t step) {
  if (out.numel() == 0) return;
  int device = out.device().index;
  DeviceGuard guard(device);
  kernels::launch_sequence_i64(out.mutable_data_as<int64_t>(), out.numel(), start, step,
                               reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

#include "cuda/random.h"

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/random.cuh"

namespace genesis::cuda {

void random_fill(const Tensor& out, philox::Kind kind, const PhiloxArgs& rng, int64_t low,
                 uint64_t range) {
  GENESIS_CHECK(out.is_contiguous() && out.is_cuda(), "random",
                "expected a contiguous CUDA tensor");
  if (out.numel() == 0) return;
  int device = out.device().index;
  DeviceGuard guard(device);
  kernels::launch_random(out.mutable_data(), static_cast<int>(out.dtype()), out.numel(), rng.seed,
                         rng.offset, rng.state, static_cast<int>(kind), low, range,
                         reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void poisson_fill(const Tensor& out, const Tensor& rates, const PhiloxArgs& rng) {
  GENESIS_CHECK(out.is_contiguous() && rates.is_contiguous() && out.is_cuda() &&
                    rates.device() == out.device() && out.dtype() == ScalarType::Float64 &&
                    rates.dtype() == ScalarType::Float64,
                "poisson", "expected contiguous float64 CUDA tensors on one device");
  if (out.numel() == 0) return;
  int device = out.device().index;
  DeviceGuard guard(device);
  kernels::launch_poisson(static_cast<double*>(out.mutable_data()),
                          static_cast<const double*>(rates.data()), out.numel(), rng.seed,
                          rng.offset, rng.state, reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void write_philox_args(const Tensor& out, const PhiloxArgs& rng) {
  GENESIS_CHECK(
      out.is_cuda() && out.is_contiguous() && out.numel() == 2 && out.dtype() == ScalarType::Int64,
      "random", "expected two contiguous int64 items on a CUDA device");
  int device = out.device().index;
  DeviceGuard guard(device);
  kernels::launch_write_philox_args(static_cast<uint64_t*>(out.mutable_data()), rng.seed,
                                    rng.offset, rng.state,
                                    reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

#include "cuda/scan.h"

#include <cuda_runtime_api.h>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/scan.cuh"

namespace genesis::cuda {

namespace {

// Asks `launch` for its scratch size, takes that from the device pool (a uint8 tensor, freed to
// the pool on the current stream afterwards), and runs it.
template <typename Launch>
void with_scratch(const Tensor& like, const Launch& launch) {
  size_t bytes = 0;
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(launch(nullptr, &bytes)));
  Tensor scratch = Tensor::empty(Shape{static_cast<int64_t>(bytes > 0 ? bytes : 1)},
                                 ScalarType::UInt8, like.device());
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(launch(scratch.mutable_data(), &bytes)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void check_rows(const Tensor& rows, const Tensor& out, const char* what) {
  GENESIS_CHECK(rows.is_cuda() && rows.is_contiguous() && out.is_contiguous() &&
                    rows.sizes() == out.sizes() && rows.device() == out.device(),
                "scan", "expected contiguous CUDA ", what, " of one shape");
}

}  // namespace

void scan_rows(ops::ScanOp op, const Tensor& rows, const Tensor& out, int64_t len) {
  check_rows(rows, out, "tensors");
  GENESIS_CHECK(rows.dtype() == out.dtype() && rows.dtype() != ScalarType::Bool, "scan",
                "expected one non-bool dtype");
  if (rows.numel() == 0) return;
  int device = rows.device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  if (kernels::warp_scan_fits(len)) {  // Note [Warp row scans]
    GENESIS_CUDA_CHECK(static_cast<cudaError_t>(kernels::launch_warp_scan_rows(
        static_cast<int>(op), static_cast<int>(rows.dtype()), rows.data(), out.mutable_data(),
        rows.numel(), len, stream)));
    GENESIS_CUDA_CHECK(cudaGetLastError());
    return;
  }
  with_scratch(rows, [&](void* temp, size_t* bytes) {
    return kernels::launch_scan_rows(static_cast<int>(op), static_cast<int>(rows.dtype()),
                                     rows.data(), out.mutable_data(), rows.numel(), len, temp,
                                     bytes, stream);
  });
}

void scan_extreme_rows(bool is_max, const Tensor& rows, const Tensor& values, const Tensor& indices,
                       int64_t len) {
  check_rows(rows, values, "tensors");
  check_rows(rows, indices, "tensors");
  GENESIS_CHECK(rows.dtype() == values.dtype() && indices.dtype() == ScalarType::Int64, "scan",
                "expected values of the input's dtype and int64 indices");
  if (rows.numel() == 0) return;
  int device = rows.device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  with_scratch(rows, [&](void* temp, size_t* bytes) {
    return kernels::launch_scan_extreme_rows(
        is_max, static_cast<int>(rows.dtype()), rows.data(), values.mutable_data(),
        indices.mutable_data_as<int64_t>(), rows.numel(), len, temp, bytes, stream);
  });
}

}  // namespace genesis::cuda

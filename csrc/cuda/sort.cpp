#include "cuda/sort.h"

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/sort.cuh"
#include "kernels/topk.cuh"
#include "kernels/unique.cuh"

namespace genesis::cuda {

void sort_rows(const Tensor& values, const Tensor& indices, bool descending,
               const Tensor* sorted_values) {
  GENESIS_CHECK(values.is_contiguous() && indices.is_contiguous() && values.is_cuda() &&
                    indices.dtype() == ScalarType::Int64 && values.numel() == indices.numel(),
                "sort", "expected contiguous CUDA values and int64 indices of one size");
  if (values.numel() == 0) return;
  int64_t cols = values.ndim() == 0 ? 1 : values.sizes().back();
  int64_t rows = values.numel() / cols;
  int device = values.device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  int dtype = static_cast<int>(values.dtype());
  size_t bytes = 0;
  void* sorted = nullptr;
  if (sorted_values) {
    GENESIS_CHECK(sorted_values->is_contiguous() && sorted_values->dtype() == values.dtype() &&
                      sorted_values->numel() == values.numel(),
                  "sort", "expected contiguous sorted values of the input's dtype and size");
    sorted = sorted_values->mutable_data();
  }
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(kernels::sort_rows(
      dtype, values.data(), nullptr, nullptr, rows, cols, descending, nullptr, &bytes, stream)));
  Tensor scratch =
      Tensor::empty(Shape{static_cast<int64_t>(bytes)}, ScalarType::UInt8, values.device());
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(
      kernels::sort_rows(dtype, values.data(), indices.mutable_data_as<int64_t>(), sorted, rows,
                         cols, descending, scratch.mutable_data(), &bytes, stream)));
}

void mode_rows(const Tensor& sorted, const Tensor& order, const Tensor& values_out,
               const Tensor& indices_out) {
  GENESIS_CHECK(sorted.is_contiguous() && order.is_contiguous() && values_out.is_contiguous() &&
                    indices_out.is_contiguous() && sorted.numel() > 0 && sorted.is_cuda(),
                "mode", "expected contiguous, non-empty CUDA rows");
  int64_t cols = sorted.ndim() == 0 ? 1 : sorted.sizes().back();
  int64_t rows = sorted.numel() / cols;
  int device = sorted.device().index;
  DeviceGuard guard(device);
  kernels::launch_mode_rows(static_cast<int>(sorted.dtype()), sorted.data(),
                            order.data_as<int64_t>(), values_out.mutable_data(),
                            indices_out.mutable_data_as<int64_t>(), rows, cols,
                            reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

bool select_top_row(const Tensor& row, int64_t k, bool largest, const Tensor& positions) {
  int dtype = static_cast<int>(row.dtype());
  int64_t n = row.numel();
  if (!kernels::select_top_supported(dtype) || n >= (int64_t{1} << 32)) return false;
  GENESIS_CHECK(row.is_contiguous() && row.is_cuda() && positions.is_contiguous() &&
                    positions.dtype() == ScalarType::Int64 && positions.numel() == k && k > 0 &&
                    k <= n,
                "topk", "expected a contiguous CUDA row and k int64 positions");
  int device = row.device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  size_t bytes = 0;
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(
      kernels::select_top_row(dtype, row.data(), n, k, largest, nullptr, nullptr, &bytes, stream)));
  Tensor scratch =
      Tensor::empty(Shape{static_cast<int64_t>(bytes)}, ScalarType::UInt8, row.device());
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(kernels::select_top_row(
      dtype, row.data(), n, k, largest, positions.mutable_data_as<int64_t>(),
      scratch.mutable_data(), &bytes, stream)));
  return true;
}

void unique_integers(const Tensor& values, int end_bit, const Tensor& unique_out,
                     const Tensor* counts_out, const Tensor& num_out) {
  int64_t n = values.numel();
  GENESIS_CHECK(
      values.is_contiguous() && values.is_cuda() && unique_out.is_contiguous() &&
          unique_out.dtype() == values.dtype() && unique_out.numel() == n &&
          num_out.dtype() == ScalarType::Int64 && num_out.numel() == 1 &&
          (!counts_out || (counts_out->is_contiguous() &&
                           counts_out->dtype() == ScalarType::Int64 && counts_out->numel() == n)),
      "unique", "expected contiguous CUDA integers and outputs of their size");
  int device = values.device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  int dtype = static_cast<int>(values.dtype());
  int64_t* counts = counts_out ? counts_out->mutable_data_as<int64_t>() : nullptr;
  size_t bytes = 0;
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(
      kernels::unique_integers(dtype, values.data(), n, end_bit, unique_out.mutable_data(), counts,
                               num_out.mutable_data_as<int64_t>(), nullptr, &bytes, stream)));
  Tensor scratch =
      Tensor::empty(Shape{static_cast<int64_t>(bytes)}, ScalarType::UInt8, values.device());
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(kernels::unique_integers(
      dtype, values.data(), n, end_bit, unique_out.mutable_data(), counts,
      num_out.mutable_data_as<int64_t>(), scratch.mutable_data(), &bytes, stream)));
}

void unique_floats(const Tensor& values, const Tensor& unique_out, const Tensor& num_out) {
  int64_t n = values.numel();
  GENESIS_CHECK(values.is_contiguous() && values.is_cuda() && unique_out.is_contiguous() &&
                    unique_out.dtype() == values.dtype() && unique_out.numel() == n &&
                    num_out.dtype() == ScalarType::Int64 && num_out.numel() == 2,
                "unique", "expected contiguous CUDA floats and outputs of their size");
  int device = values.device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  int dtype = static_cast<int>(values.dtype());
  size_t bytes = 0;
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(
      kernels::unique_floats(dtype, values.data(), n, unique_out.mutable_data(),
                             num_out.mutable_data_as<int64_t>(), nullptr, &bytes, stream)));
  Tensor scratch =
      Tensor::empty(Shape{static_cast<int64_t>(bytes)}, ScalarType::UInt8, values.device());
  GENESIS_CUDA_CHECK(static_cast<cudaError_t>(kernels::unique_floats(
      dtype, values.data(), n, unique_out.mutable_data(), num_out.mutable_data_as<int64_t>(),
      scratch.mutable_data(), &bytes, stream)));
}

}  // namespace genesis::cuda

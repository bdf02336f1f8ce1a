#include "cuda/search.h"

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/search.cuh"

namespace genesis::cuda {

void search_sorted(const Tensor& sorted, const Tensor& values, const Tensor& out, bool right) {
  GENESIS_CHECK(sorted.is_contiguous() && values.is_contiguous() && out.is_contiguous() &&
                    sorted.dtype() == values.dtype() && out.numel() == values.numel() &&
                    values.is_cuda(),
                "searchsorted", "expected contiguous CUDA operands of one dtype");
  int64_t total = values.numel();
  if (total == 0) return;
  int64_t n = sorted.ndim() == 0 ? 1 : sorted.sizes().back();
  int64_t rows_sorted = n == 0 ? 1 : sorted.numel() / n;
  int64_t m = rows_sorted == 1 ? total : total / rows_sorted;
  int device = values.device().index;
  DeviceGuard guard(device);
  kernels::launch_search_sorted(static_cast<int>(values.dtype()), sorted.data(), values.data(),
                                out.mutable_data(), out.dtype() == ScalarType::Int32, rows_sorted,
                                n, total, m, right,
                                reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

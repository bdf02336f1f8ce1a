#include "cuda/softmax.h"

#include <algorithm>

#include "core/errors.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "kernels/softmax.cuh"

namespace genesis::cuda {

namespace {

// Blocks a long row is cut into: when there are fewer rows than multiprocessors, enough that
// the blocks cover every multiprocessor twice, each still at least 8192 items (a block's
// merge costs about as much as reading that many).
int64_t chunks_for(int64_t rows, int64_t cols, int device) {
  if (cols <= kernels::kSoftmaxWarpRowMax) return 1;
  int64_t sms = multiprocessor_count(device);
  if (rows >= sms) return 1;
  int64_t chunks = (2 * sms + rows - 1) / rows;
  return std::max<int64_t>(1, std::min(chunks, cols / 8192));
}

}  // namespace

void softmax_last_dim(const Tensor& in, const Tensor& out, bool log) {
  GENESIS_CHECK(in.is_contiguous() && out.is_contiguous() && in.is_cuda() && in.ndim() > 0 &&
                    in.dtype() == out.dtype() && in.sizes() == out.sizes(),
                "softmax", "expected two contiguous CUDA tensors of one shape and dtype");
  if (in.numel() == 0) return;
  int64_t cols = in.sizes().back(), rows = in.numel() / cols;
  int device = in.device().index;
  DeviceGuard guard(device);
  int64_t chunks = chunks_for(rows, cols, device);
  Tensor workspace;
  if (chunks > 1) {
    ScalarType compute =
        in.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
    workspace = Tensor::empty(Shape{2 * rows * chunks}, compute, in.device());
  }
  kernels::launch_softmax_rows(static_cast<int>(in.dtype()), in.data(), out.mutable_data(), rows,
                               cols, log, chunks,
                               workspace.defined() ? workspace.mutable_data() : nullptr,
                               reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

bool logsumexp_rows_fit(int64_t cols) { return cols <= kernels::kSoftmaxWarpRowMax; }

void logsumexp_last_dim(const Tensor& in, const Tensor& out) {
  GENESIS_CHECK(in.is_contiguous() && out.is_contiguous() && in.is_cuda() && in.ndim() > 0 &&
                    in.dtype() == out.dtype() && in.sizes().back() <= kernels::kSoftmaxWarpRowMax &&
                    (in.numel() == 0 || out.numel() == in.numel() / in.sizes().back()),
                "logsumexp", "expected contiguous CUDA rows of at most ",
                kernels::kSoftmaxWarpRowMax, " items and one output item a row");
  if (in.numel() == 0) return;
  int64_t cols = in.sizes().back(), rows = in.numel() / cols;
  int device = in.device().index;
  DeviceGuard guard(device);
  kernels::launch_logsumexp_rows(static_cast<int>(in.dtype()), in.data(), out.mutable_data(), rows,
                                 cols, reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

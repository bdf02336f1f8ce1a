#include "cuda/lstm_cell.h"

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/stream.h"
#include "kernels/lstm_cell.cuh"

namespace genesis::cuda {

namespace {

const void* data_or_null(const Tensor& t) { return t.defined() ? t.data() : nullptr; }

}  // namespace

void lstm_cell_forward(const Tensor& gi, const Tensor& gh, const Tensor& c, const Tensor& h,
                       const Tensor& c_new, const Tensor& act) {
  if (c.numel() == 0) return;
  int64_t hidden = c.sizes().back();
  int device = c.device().index;
  DeviceGuard guard(device);
  kernels::launch_lstm_cell_forward(static_cast<int>(c.dtype()), gi.data(), gh.data(), c.data(),
                                    h.mutable_data(), c_new.mutable_data(), act.mutable_data(),
                                    c.numel() / hidden, hidden,
                                    reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void lstm_cell_backward(const Tensor& dh, const Tensor& dc, const Tensor& act, const Tensor& c,
                        const Tensor& c_new, const Tensor& dgates, const Tensor& dc_prev) {
  if (c.numel() == 0) return;
  int64_t hidden = c.sizes().back();
  int device = c.device().index;
  DeviceGuard guard(device);
  kernels::launch_lstm_cell_backward(
      static_cast<int>(c.dtype()), data_or_null(dh), data_or_null(dc), act.data(), c.data(),
      c_new.data(), dgates.mutable_data(), dc_prev.mutable_data(), c.numel() / hidden, hidden,
      reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

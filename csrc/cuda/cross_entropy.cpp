#include "cuda/cross_entropy.h"

#include "core/index_check.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/index.h"
#include "cuda/index_errors.h"
#include "cuda/stream.h"
#include "kernels/cross_entropy.cuh"

namespace genesis::cuda {

namespace {

kernels::CrossEntropyRows rows_of(const Tensor& logits, const Tensor& target, const Tensor& weight,
                                  const Tensor& weight_sum, int64_t ignore_index,
                                  double smoothing) {
  int64_t cols = logits.sizes().back();
  return kernels::CrossEntropyRows{static_cast<int>(logits.dtype()),
                                   logits.data(),
                                   target.data_as<int64_t>(),
                                   weight.defined() ? weight.data() : nullptr,
                                   weight_sum.defined() ? weight_sum.data() : nullptr,
                                   target.numel(),
                                   cols,
                                   ignore_index,
                                   smoothing};
}

void* stream_for(int device) { return reinterpret_cast<void*>(current_stream(device)); }

}  // namespace

void cross_entropy_forward(const Tensor& logits, const Tensor& target, const Tensor& weight,
                           const Tensor& weight_sum, int64_t ignore_index, double smoothing,
                           const Tensor& loss, const Tensor& lse) {
  if (target.numel() == 0) return;
  int device = logits.device().index;
  DeviceGuard guard(device);
  IndexOpScope scope("cross_entropy");
  kernels::CrossEntropyRows a =
      rows_of(logits, target, weight, weight_sum, ignore_index, smoothing);
  kernels::launch_cross_entropy_forward(a, loss.mutable_data(), lse.mutable_data(),
                                        index_site(device), stream_for(device));
  GENESIS_CUDA_CHECK(cudaGetLastError());
  check_index_offsets(target);  // waits and raises under the immediate check only
}

void cross_entropy_backward(const Tensor& logits, const Tensor& target, const Tensor& weight,
                            const Tensor& weight_sum, int64_t ignore_index, double smoothing,
                            const Tensor& grad, const Tensor& lse, const Tensor& dlogits) {
  if (target.numel() == 0) return;
  int device = logits.device().index;
  DeviceGuard guard(device);
  kernels::CrossEntropyRows a =
      rows_of(logits, target, weight, weight_sum, ignore_index, smoothing);
  kernels::launch_cross_entropy_backward(a, grad.data(), lse.data(), dlogits.mutable_data(),
                                         stream_for(device));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

// CUDA copies (cuda/copy.h): bytes between devices, and same-device strided copies with the
// loop planner's geometry handed to the copy kernels.
#include "cuda/copy.h"

#include "core/errors.h"
#include "core/loop_plan.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/memory.h"
#include "cuda/stream.h"
#include "kernels/copy.cuh"

namespace genesis::cuda {

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const Shape* strides[2] = {&dst.strides(), &src.strides()};
  int64_t items[2] = {static_cast<int64_t>(dst.itemsize()), static_cast<int64_t>(src.itemsize())};
  LoopPlan plan = plan_loop(dst.sizes(), strides, items, 2);
  if (plan.ndim() > kernels::kMaxCopyDims) {
    // More unmergeable dims than a kernel takes: one launch per index of the outermost dim.
    for (int64_t i = 0; i < dst.sizes()[0]; ++i) {
      auto drop_first = [i](const Tensor& t) {
        return t.as_strided(Shape(t.sizes().begin() + 1, t.sizes().end()),
                            Shape(t.strides().begin() + 1, t.strides().end()),
                            t.storage_offset() + i * t.strides()[0]);
      };
      copy(drop_first(dst), drop_first(src));
    }
    return;
  }
  kernels::CopyGeometry g;
  g.ndim = static_cast<int>(plan.ndim());
  for (int d = 0; d < g.ndim; ++d) {
    g.sizes[d] = plan.sizes[d];
    g.dst_strides[d] = plan.byte_strides[0][d];
    g.src_strides[d] = plan.byte_strides[1][d];
  }
  int device = dst.device().index;
  DeviceGuard guard(device);
  kernels::launch_copy(dst.mutable_data(), static_cast<int>(dst.dtype()), src.data(),
                       static_cast<int>(src.dtype()), plan.numel, g,
                       reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  // The copy runs on the CUDA side's current stream, so it follows the work queued there. Only a
  // copy to the host waits (for that stream, never the whole device): the caller reads the
  // bytes next. A copy from pageable host memory returns once the runtime has staged the
  // source, so the caller may reuse it at once; device-to-device copies stay queued.
  int index = dst_device.is_cuda() ? dst_device.index : src_device.index;
  DeviceGuard guard(index);
  auto stream = reinterpret_cast<cudaStream_t>(current_stream(index));
  GENESIS_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, stream));
  if (dst_device.is_cpu() || is_pinned(src)) GENESIS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_bytes_async(void* dst, const void* src, size_t nbytes, StreamId stream,
                      int device_index) {
  if (nbytes == 0) return;
  DeviceGuard guard(device_index);
  GENESIS_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, reinterpret_cast<cudaStream_t>(stream)));
}

}  // namespace genesis::cuda

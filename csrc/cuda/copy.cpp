// CUDA copies (cuda/copy.h): bytes between devices, and same-device strided copies with the
// loop planner's geometry handed to the copy kernels.
#include "cuda/copy.h"

#include <optional>

#include "core/caller_lock.h"
#include "core/errors.h"
#include "core/loop_plan.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/geometry.h"
#include "cuda/memory.h"
#include "cuda/stream.h"
#include "kernels/copy.cuh"

namespace genesis::cuda {

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  LoopPlan plan = plan_operands(dst, {&dst, &src});
  int device = dst.device().index;
  DeviceGuard guard(device);
  void* stream = reinterpret_cast<void*>(current_stream(device));
  for_each_geometry(plan, {written_base(dst), read_base(src)},
                    [&](const kernels::Geometry& g, const KernelBases& b) {
                      kernels::launch_copy(b[0], static_cast<int>(dst.dtype()), b[1],
                                           static_cast<int>(src.dtype()), g.numel, g, stream);
                    });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  // The copy runs on the CUDA side's current stream, so it follows the work queued there. Only a
  // copy to the host waits (for that stream, never the whole device): the caller reads the
  // bytes next. A copy from pageable host memory returns once the runtime has staged the
  // source, so the caller may reuse it at once; device-to-device copies stay queued.
  int index = dst_device.is_cuda() ? dst_device.index : src_device.index;
  // A copy that touches the host waits (for staging or for the stream): other Python threads run
  // meanwhile (Note [Releasing the caller's lock] in core/caller_lock.h).
  std::optional<UnlockedRegion> unlocked;
  if (dst_device.is_cpu() || src_device.is_cpu()) unlocked.emplace();
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

// CUDA copies (cuda/copy.h): bytes between devices, and same-device strided copies with the
// loop planner's geometry handed to the copy kernels.
#include "cuda/copy.h"

#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "core/caller_lock.h"
#include "core/errors.h"
#include "core/graph_capture.h"
#include "core/loop_plan.h"
#include "core/sync_debug.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/geometry.h"
#include "cuda/index_errors.h"
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

namespace {

// Lets `device` read and write `peer`'s memory directly, once per ordered pair; false where the
// hardware cannot (the runtime then stages through the host).
bool enable_peer_access(int device, int peer) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, bool> enabled;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = enabled.try_emplace({device, peer}, false);
  if (!fresh) return it->second;
  int can = 0;
  GENESIS_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
  if (can) {
    DeviceGuard guard(device);
    cudaError_t err = cudaDeviceEnablePeerAccess(peer, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {
      cudaGetLastError();  // enabled by someone else in this process: fine, and not sticky
      err = cudaSuccess;
    }
    GENESIS_CUDA_CHECK(err);
  }
  it->second = can != 0;
  return it->second;
}

// Note [Copies between GPUs]
// A copy from one GPU to another runs on the source device's current stream (the copy engine
// there pushes over NVLink or PCIe once peer access is on), between two barriers: the source
// stream first waits for the destination's current stream (nothing there still uses the
// destination), and the destination's current stream then waits for the copy, so the next op
// there sees the bytes. Neither the host nor either whole device waits.
void copy_between_devices(void* dst, int dst_index, const void* src, int src_index, size_t nbytes) {
  enable_peer_access(src_index, dst_index);
  StreamId src_stream = current_stream(src_index), dst_stream = current_stream(dst_index);
  EventId dst_ready = create_event(dst_index, false, false);
  record_event(dst_ready, dst_stream, dst_index);
  stream_wait_event(src_stream, dst_ready, src_index);
  destroy_event(dst_ready);
  {
    DeviceGuard guard(src_index);
    GENESIS_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_index, src, src_index, nbytes,
                                           reinterpret_cast<cudaStream_t>(src_stream)));
  }
  EventId copied = create_event(src_index, false, false);
  record_event(copied, src_stream, src_index);
  stream_wait_event(dst_stream, copied, dst_index);
  destroy_event(copied);
}

}  // namespace

bool can_access_peer(int device, int peer) {
  int can = 0;
  GENESIS_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
  return can != 0;
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_device.is_cuda() && src_device.is_cuda() && dst_device.index != src_device.index) {
    copy_between_devices(dst, dst_device.index, src, src_device.index, nbytes);
    return;
  }
  // The copy runs on the CUDA side's current stream, so it follows the work queued there. Only a
  // copy to the host waits (for that stream, never the whole device): the caller reads the
  // bytes next. A copy from pageable host memory returns once the runtime has staged the
  // source, so the caller may reuse it at once; device-to-device copies stay queued.
  int index = dst_device.is_cuda() ? dst_device.index : src_device.index;
  // A copy that touches the host waits (for staging or for the stream): other Python threads run
  // meanwhile (Note [Releasing the caller's lock] in core/caller_lock.h).
  bool waits = dst_device.is_cpu() || is_pinned(src);
  if (waits) note_implicit_sync("copy", index);  // Note [Sync debug mode]
  // A copy from pageable host memory is staged by the host: CUDA cannot capture it.
  if (src_device.is_cpu()) check_not_capturing("copy");
  std::optional<UnlockedRegion> unlocked;
  if (dst_device.is_cpu() || src_device.is_cpu()) unlocked.emplace();
  DeviceGuard guard(index);
  auto stream = reinterpret_cast<cudaStream_t>(current_stream(index));
  GENESIS_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, stream));
  if (!waits) return;
  GENESIS_CUDA_CHECK(cudaStreamSynchronize(stream));
  unlocked.reset();
  raise_index_error(index, dst_device.is_cpu()
                               ? "a copy to the host"
                               : "a copy from pinned memory");  // Note [Deferred index errors]
}

void copy_bytes_async(void* dst, const void* src, size_t nbytes, StreamId stream,
                      int device_index) {
  if (nbytes == 0) return;
  DeviceGuard guard(device_index);
  GENESIS_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, reinterpret_cast<cudaStream_t>(stream)));
}

}  // namespace genesis::cuda

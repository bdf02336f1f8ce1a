// Streams and events (cuda/stream.h).
#include <cuda_runtime_api.h>

#include <array>
#include <atomic>

#include "core/caller_lock.h"
#include "core/graph_capture.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/index_errors.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"

namespace genesis::cuda {

namespace {
// The current stream is per thread and per device, as in PyTorch; 0 is the legacy default.
thread_local std::array<StreamId, kMaxCudaDevices> current_streams{};

cudaStream_t as_stream(StreamId s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t as_event(EventId e) { return reinterpret_cast<cudaEvent_t>(e); }
}  // namespace

StreamId current_stream(int device_index) {
  return current_streams[resolve(Device{DeviceType::CUDA, device_index}).index];
}

void set_current_stream(int device_index, StreamId stream) {
  current_streams[resolve(Device{DeviceType::CUDA, device_index}).index] = stream;
}

StreamId create_stream(int device_index, int priority) {
  DeviceGuard guard(device_index);
  cudaStream_t s = nullptr;
  GENESIS_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority));
  return reinterpret_cast<StreamId>(s);
}

void destroy_stream(int device_index, StreamId stream) {
  if (stream == 0) return;
  DeviceGuard guard(device_index);
  cudaStreamDestroy(as_stream(stream));
}

void synchronize_stream(int device_index, StreamId stream) {
  check_not_capturing("Stream.synchronize");  // Note [Syncs during capture]
  DeviceGuard guard(device_index);
  {
    UnlockedRegion unlocked;  // Note [Releasing the caller's lock]
    GENESIS_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
  }
  raise_index_error(device_index, "Stream.synchronize");  // Note [Deferred index errors]
}

bool query_stream(int device_index, StreamId stream) {
  check_not_capturing("Stream.query");
  DeviceGuard guard(device_index);
  cudaError_t err = cudaStreamQuery(as_stream(stream));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  GENESIS_CUDA_CHECK(err);
  return true;
}

EventId create_event(int device_index, bool enable_timing, bool blocking) {
  DeviceGuard guard(device_index);
  unsigned flags =
      (enable_timing ? 0u : cudaEventDisableTiming) | (blocking ? cudaEventBlockingSync : 0u);
  cudaEvent_t e = nullptr;
  GENESIS_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
  return reinterpret_cast<EventId>(e);
}

void destroy_event(EventId event) {
  if (event != 0) cudaEventDestroy(as_event(event));
}

void record_event(EventId event, StreamId stream, int device_index) {
  DeviceGuard guard(device_index);
  GENESIS_CUDA_CHECK(cudaEventRecord(as_event(event), as_stream(stream)));
}

bool query_event(EventId event) {
  check_not_capturing("Event.query");  // the pools never ask during a capture
  cudaError_t err = cudaEventQuery(as_event(event));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  GENESIS_CUDA_CHECK(err);
  return true;
}

void synchronize_event(EventId event) {
  check_not_capturing("Event.synchronize");
  {
    UnlockedRegion unlocked;  // Note [Releasing the caller's lock]
    GENESIS_CUDA_CHECK(cudaEventSynchronize(as_event(event)));
  }
  raise_index_errors("Event.synchronize");  // Note [Deferred index errors]
}

float elapsed_ms(EventId start, EventId end) {
  float ms = 0;
  GENESIS_CUDA_CHECK(cudaEventElapsedTime(&ms, as_event(start), as_event(end)));
  return ms;
}

void stream_wait_event(StreamId stream, EventId event, int device_index) {
  DeviceGuard guard(device_index);
  GENESIS_CUDA_CHECK(cudaStreamWaitEvent(as_stream(stream), as_event(event), 0));
}

}  // namespace genesis::cuda

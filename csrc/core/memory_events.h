#pragma once
// What every allocator reports to the memory profiler: allocations, frees, segments mapped and
// unmapped, out-of-memory and empty_cache, each with where and how much.
//
// Note [Memory events when profiling is off]
// The allocators sit on the hottest path there is (every op's result), so reporting must cost
// nothing while nobody listens. A report is an inline load of one atomic function pointer, the
// sink, with relaxed ordering, and a branch on it being null: no call, no clock read, no lock.
// The profiler (csrc/memory/event_recorder.h) installs its sink when recording starts and
// clears it when recording stops; a report racing a stop may still reach the sink, which is
// never destroyed, so that is harmless. Core knows nothing of the recorder: the sink is the
// whole interface, the same shape as the device-backend registry (Note [Device backends]).
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace genesis {

enum class MemoryEventKind : uint8_t {
  Alloc = 0,
  Free = 1,
  SegmentMap = 2,    // the pool took a segment from the driver (cudaMalloc, cudaHostAlloc)
  SegmentUnmap = 3,  // ... and gave one back
  Oom = 4,           // an allocation failed; size is what was asked
  EmptyCache = 5,    // empty_cache(); size is what it released
};

// Which memory an event is about: the CPU heap, a CUDA device's pool, the pinned host pool, or a
// pool over the tests' host backend.
enum class MemoryPoolKind : uint8_t { Cpu = 0, Cuda = 1, Pinned = 2, Host = 3 };

struct MemoryEventSource {
  MemoryPoolKind pool = MemoryPoolKind::Host;
  int16_t device_index = -1;  // the CUDA device; -1 elsewhere
};

// size: bytes the allocator set aside (rounded); requested: bytes the caller asked for.
using MemoryEventSink = void (*)(MemoryEventKind kind, MemoryEventSource source, uint64_t stream,
                                 const void* address, size_t size, size_t requested);

namespace detail {
extern std::atomic<MemoryEventSink> memory_event_sink;
}

// Null turns reporting off.
void set_memory_event_sink(MemoryEventSink sink);

// Note [Tensor shapes of memory events]
// An allocator sees bytes, not tensors; the shape and dtype of what the memory is for are known
// a few frames up, where a factory or an op allocates the storage of a result (Tensor::empty).
// There a ScopedTensorAllocation names them in a thread-local for the allocation inside its
// scope, and the profiler reads it when it records an allocation. It costs the same relaxed
// load of the sink as a report while nobody listens: the thread-local is only written when a
// sink is installed. Scopes nest (the innermost one counts), and memory allocated outside any
// (a copy's staging buffer, memory from NumPy) is recorded with no shape. The sizes are
// borrowed: the scope must not outlive them.
struct TensorAllocation {
  const int64_t* sizes = nullptr;
  size_t ndim = 0;
  int8_t dtype = -1;  // a ScalarType
};

namespace detail {
extern thread_local const TensorAllocation* current_tensor_allocation;
}

class ScopedTensorAllocation {
 public:
  ScopedTensorAllocation(const int64_t* sizes, size_t ndim, int8_t dtype) {
    if (detail::memory_event_sink.load(std::memory_order_relaxed) == nullptr) [[likely]]
      return;
    info_ = {sizes, ndim, dtype};
    previous_ = detail::current_tensor_allocation;
    detail::current_tensor_allocation = &info_;
    active_ = true;
  }
  ~ScopedTensorAllocation() {
    if (active_) detail::current_tensor_allocation = previous_;
  }
  ScopedTensorAllocation(const ScopedTensorAllocation&) = delete;
  ScopedTensorAllocation& operator=(const ScopedTensorAllocation&) = delete;

 private:
  TensorAllocation info_;
  const TensorAllocation* previous_ = nullptr;
  bool active_ = false;
};

// The tensor the calling thread allocates for, or nullptr (Note [Tensor shapes of memory
// events]); for the profiler's sink.
inline const TensorAllocation* current_tensor_allocation() {
  return detail::current_tensor_allocation;
}

// Note [Memory events when profiling is off]: one relaxed load and a branch when off.
inline void report_memory_event(MemoryEventKind kind, MemoryEventSource source, uint64_t stream,
                                const void* address, size_t size, size_t requested) {
  MemoryEventSink sink = detail::memory_event_sink.load(std::memory_order_relaxed);
  if (sink != nullptr) [[unlikely]]
    sink(kind, source, stream, address, size, requested);
}

}  // namespace genesis

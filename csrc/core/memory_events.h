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

// Note [Memory events when profiling is off]: one relaxed load and a branch when off.
inline void report_memory_event(MemoryEventKind kind, MemoryEventSource source, uint64_t stream,
                                const void* address, size_t size, size_t requested) {
  MemoryEventSink sink = detail::memory_event_sink.load(std::memory_order_relaxed);
  if (sink != nullptr) [[unlikely]]
    sink(kind, source, stream, address, size, requested);
}

}  // namespace genesis

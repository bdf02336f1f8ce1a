#pragma once
// The memory profiler's recorder: the sink every allocator reports to (core/memory_events.h),
// keeping events in a preallocated ring buffer and, for leak checks, the allocations still live.
//
// Note [Memory event ring buffer]
// Events are plain structs written into a buffer of max_events entries allocated when recording
// starts, so recording allocates nothing per event. When the buffer is full the oldest events
// are overwritten; `dropped` says how many were lost. Writers take one mutex for the few stores
// of an event (threads that allocate at once are serialised there, never corrupted); a stack,
// when asked for, is captured before the mutex is taken. Readers copy the buffer under the same
// mutex, oldest event first.
//
// Note [Leak tracking]
// Memory debugging keeps, besides the ring, a map from address to each allocation made while it
// is on and not yet freed (with its stack), so that a leak is found however many events the
// ring has overwritten. A free removes the entry; an allocation made before debugging started
// has none, so its free changes nothing. Each allocation carries the sequence number of its
// event, so a baseline (a sequence number) hides what was live before it.
//
// Note [Recorded shapes]
// An allocation made for a tensor of known shape and dtype (Note [Tensor shapes of memory
// events] in core/memory_events.h) records them: the dtype as its ScalarType code (-1: unknown)
// and the shape as an id into a table of interned shapes (0: unknown), so an event stays a fixed
// size and a loop allocating one shape interns it once (the last shape is compared first). A
// free names what it frees by address only; recorded_events gives it the shape of the
// allocation at that address earlier in the ring (unknown when that allocation is older than
// the ring).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/memory_events.h"

namespace genesis::memory {

struct RecordedEvent {
  int64_t time_ns;     // steady clock
  uint64_t sequence;   // 1, 2, 3 ... across every event since the process started
  uint64_t address;    // 0 for oom and empty_cache
  uint64_t size;       // bytes set aside (oom: the segment it tried; empty_cache: released)
  uint64_t requested;  // bytes asked for
  uint64_t stream;     // 0 where there is none
  uint32_t stack_id;   // 0: no stack
  uint32_t shape_id;   // Note [Recorded shapes]; 0: unknown
  uint8_t kind;        // MemoryEventKind
  uint8_t pool;        // MemoryPoolKind
  int16_t device_index;
  int8_t dtype;  // a ScalarType; -1: unknown
};

struct LiveAllocation {
  uint64_t address;
  uint64_t size;
  uint64_t requested;
  uint64_t sequence;
  int64_t time_ns;
  uint32_t stack_id;
  uint32_t shape_id;
  uint8_t pool;
  int16_t device_index;
  int8_t dtype;
};

enum class StackMode : uint8_t { None = 0, Python = 1, All = 2 };

// Installed by the bindings: interns the calling thread's stack and returns its id, or 0 when
// there is none to take (no interpreter lock held, no Python frame).
using StackCapture = uint32_t (*)(StackMode mode);
void install_stack_capture(StackCapture capture);

// Starts a recording with a fresh ring of max_events (> 0) events; raises if one is running.
void start_recording(size_t max_events, StackMode stacks);
void stop_recording();
bool is_recording();
// The events recorded since the last start, oldest first, and how many were overwritten.
std::vector<RecordedEvent> recorded_events(uint64_t* dropped);

// Note [Leak tracking]. Turning debugging on forgets what an earlier session tracked.
void set_debugging(bool on);
bool is_debugging();
std::vector<LiveAllocation> live_allocations(uint64_t since_sequence);
uint64_t current_sequence();  // the sequence number of the latest event
// Note [Recorded shapes]: every shape interned so far; entry 0 is the unknown shape (empty).
std::vector<std::vector<int64_t>> recorded_shapes();

}  // namespace genesis::memory

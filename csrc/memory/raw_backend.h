#pragma once
// What the caching pool needs from the memory underneath it: raw segments and stream events.
// Implemented by the CUDA device (cudaMalloc + cudaEvent), pinned host memory, and a plain host
// backend whose "events" the tests complete by hand.
#include <cstddef>
#include <cstdint>
#include <string>

namespace genesis::memory {

using StreamId = uintptr_t;  // an opaque stream handle; 0 is the default stream
using EventId = uintptr_t;   // an opaque event handle from record_event

class RawBackend {
 public:
  virtual ~RawBackend() = default;
  // A new segment of `nbytes`, or nullptr when the memory is exhausted (never raises for that).
  virtual void* raw_alloc(size_t nbytes) = 0;
  virtual void raw_free(void* ptr, size_t nbytes) = 0;
  // Capacity and free bytes of the memory underneath, for the out-of-memory message and the
  // memory fraction.
  virtual size_t total_bytes() = 0;
  virtual size_t free_bytes() = 0;
  // Marks the current end of `stream`'s work; query says whether that point has been reached.
  virtual EventId record_event(StreamId stream) = 0;
  virtual bool query_event(EventId event) = 0;
  virtual void release_event(EventId event) = 0;
  virtual std::string describe() = 0;  // "cuda:0", "host"
  // True while a CUDA graph capture is underway in the process: events must not be queried and
  // memory must not be returned then (Note [Graph private pools] in memory/caching_pool.h).
  virtual bool capture_underway() const { return false; }
};

}  // namespace genesis::memory

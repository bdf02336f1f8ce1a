#pragma once
// A plain host-memory backend for the caching pool, used by the tests so that every pool rule is
// exercised without a GPU. Its capacity is a parameter (to provoke out-of-memory), and its
// "streams" are numbers whose events complete only when the test says so.
#include <cstddef>
#include <map>
#include <mutex>

#include "memory/raw_backend.h"

namespace genesis::memory {

class HostBackend final : public RawBackend {
 public:
  static constexpr size_t kAlignment = 512;
  explicit HostBackend(size_t capacity) : capacity_(capacity) {}
  void* raw_alloc(size_t nbytes) override;
  void raw_free(void* ptr, size_t nbytes) override;
  size_t total_bytes() override { return capacity_; }
  size_t free_bytes() override;
  EventId record_event(StreamId stream) override;
  bool query_event(EventId event) override;
  void release_event(EventId event) override;
  std::string describe() override { return "host"; }

  // Completes every event recorded so far on `stream`.
  void complete_stream(StreamId stream);
  size_t used_bytes();
  size_t live_events();

 private:
  struct Event {
    StreamId stream;
    bool done;
  };
  std::mutex mutex_;
  size_t capacity_;
  size_t used_ = 0;
  EventId next_event_ = 1;
  std::map<EventId, Event> events_;
};

}  // namespace genesis::memory

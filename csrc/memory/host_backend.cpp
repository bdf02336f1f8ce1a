#include "memory/host_backend.h"

#include <cstdlib>

namespace genesis::memory {

void* HostBackend::raw_alloc(size_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ + nbytes > capacity_) return nullptr;
  void* ptr = std::aligned_alloc(kAlignment, nbytes);
  if (ptr != nullptr) used_ += nbytes;
  return ptr;
}

void HostBackend::raw_free(void* ptr, size_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::free(ptr);
  used_ -= nbytes;
}

size_t HostBackend::free_bytes() {
  std::lock_guard<std::mutex> lock(mutex_);
  return capacity_ - used_;
}

EventId HostBackend::record_event(StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  EventId id = next_event_++;
  events_[id] = Event{stream, false};
  return id;
}

bool HostBackend::query_event(EventId event) {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_.at(event).done;
}

void HostBackend::release_event(EventId event) {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.erase(event);
}

void HostBackend::complete_stream(StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [id, e] : events_)
    if (e.stream == stream) e.done = true;
}

size_t HostBackend::used_bytes() {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

size_t HostBackend::live_events() {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_.size();
}

}  // namespace genesis::memory

#include "core/memory_events.h"

namespace genesis {

namespace detail {
std::atomic<MemoryEventSink> memory_event_sink{nullptr};
thread_local const TensorAllocation* current_tensor_allocation = nullptr;
}  // namespace detail

void set_memory_event_sink(MemoryEventSink sink) {
  detail::memory_event_sink.store(sink, std::memory_order_release);
}

}  // namespace genesis

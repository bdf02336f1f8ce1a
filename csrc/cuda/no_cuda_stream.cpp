// Streams and events of a CPU-only build: everything raises no_device() (cuda/runtime.h).
#include "cuda/runtime.h"
#include "cuda/stream.h"

namespace genesis::cuda {

StreamId current_stream(int) { no_device(); }
void set_current_stream(int, StreamId) { no_device(); }
StreamId create_stream(int, int) { no_device(); }
void destroy_stream(int, StreamId) {}
void synchronize_stream(int, StreamId) { no_device(); }
bool query_stream(int, StreamId) { no_device(); }
EventId create_event(int, bool, bool) { no_device(); }
void destroy_event(EventId) {}
void record_event(EventId, StreamId, int) { no_device(); }
bool query_event(EventId) { no_device(); }
void synchronize_event(EventId) { no_device(); }
float elapsed_ms(EventId, EventId) { no_device(); }
void stream_wait_event(StreamId, EventId, int) { no_device(); }

}  // namespace genesis::cuda

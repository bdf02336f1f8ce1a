#pragma once
// CUDA streams and events as opaque handles (Note [CUDA backend layout] in cuda/runtime.h).
#include <cstdint>

namespace genesis::cuda {

// 0 is the default (legacy) stream of each device.
using StreamId = uintptr_t;
StreamId current_stream(int device_index);
void set_current_stream(int device_index, StreamId stream);
StreamId create_stream(int device_index, int priority);
void destroy_stream(int device_index, StreamId stream);
void synchronize_stream(int device_index, StreamId stream);
bool query_stream(int device_index, StreamId stream);

using EventId = uintptr_t;
EventId create_event(int device_index, bool enable_timing, bool blocking);
void destroy_event(EventId event);
void record_event(EventId event, StreamId stream, int device_index);
bool query_event(EventId event);
void synchronize_event(EventId event);
float elapsed_ms(EventId start, EventId end);
void stream_wait_event(StreamId stream, EventId event, int device_index);

}  // namespace genesis::cuda

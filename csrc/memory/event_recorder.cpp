#include "memory/event_recorder.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>

#include "core/errors.h"

namespace genesis::memory {

namespace {

// One recorder per process, never destroyed: allocators may report during interpreter shutdown.
struct Recorder {
  std::mutex mutex;
  std::unique_ptr<RecordedEvent[]> ring;  // Note [Memory event ring buffer]
  size_t capacity = 0;
  uint64_t written = 0;  // events written since the start; the ring holds the last `capacity`
  uint64_t sequence = 0;
  std::unordered_map<uint64_t, LiveAllocation> live;  // Note [Leak tracking]
  std::atomic<bool> recording{false};
  std::atomic<bool> debugging{false};
  std::atomic<StackMode> stacks{StackMode::None};
  std::atomic<StackCapture> capture{nullptr};
  // Note [Recorded shapes]: under the mutex; never cleared, so ids stay valid across sessions.
  std::vector<std::vector<int64_t>> shapes{{}};
  std::unordered_map<std::string, uint32_t> shape_ids;
  uint32_t last_shape = 0;
};

uint32_t intern_shape(Recorder& r, const TensorAllocation& t) {
  const std::vector<int64_t>& last = r.shapes[r.last_shape];
  if (r.last_shape != 0 && last.size() == t.ndim && std::equal(last.begin(), last.end(), t.sizes))
    return r.last_shape;
  std::string key(reinterpret_cast<const char*>(t.sizes), t.ndim * sizeof(int64_t));
  key.push_back('s');  // a 0-d shape's key is not empty
  auto it = r.shape_ids.find(key);
  uint32_t id = 0;
  if (it != r.shape_ids.end()) {
    id = it->second;
  } else {
    id = static_cast<uint32_t>(r.shapes.size());
    r.shapes.emplace_back(t.sizes, t.sizes + t.ndim);
    r.shape_ids.emplace(std::move(key), id);
  }
  r.last_shape = id;
  return id;
}

Recorder& recorder() {
  static auto* r = new Recorder();
  return *r;
}

void record(MemoryEventKind kind, MemoryEventSource source, uint64_t stream, const void* address,
            size_t size, size_t requested) {
  Recorder& r = recorder();
  bool recording = r.recording.load(std::memory_order_relaxed);
  bool debugging = r.debugging.load(std::memory_order_relaxed);
  // Stacks: every event's when the recording asks for them; allocations' when debugging, which
  // reports where leaked memory was allocated.
  StackMode mode = recording ? r.stacks.load(std::memory_order_relaxed) : StackMode::None;
  if (debugging && kind == MemoryEventKind::Alloc && mode == StackMode::None)
    mode = StackMode::Python;
  uint32_t stack = 0;
  if (mode != StackMode::None) {
    StackCapture capture = r.capture.load(std::memory_order_acquire);
    if (capture != nullptr) stack = capture(mode);
  }
  RecordedEvent e;
  e.time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now().time_since_epoch())
                  .count();
  e.address = reinterpret_cast<uintptr_t>(address);
  e.size = size;
  e.requested = requested;
  e.stream = stream;
  e.stack_id = stack;
  e.kind = static_cast<uint8_t>(kind);
  e.pool = static_cast<uint8_t>(source.pool);
  e.device_index = source.device_index;
  e.shape_id = 0;
  e.dtype = -1;
  const TensorAllocation* tensor =
      kind == MemoryEventKind::Alloc ? current_tensor_allocation() : nullptr;
  std::lock_guard<std::mutex> lock(r.mutex);
  e.sequence = ++r.sequence;
  if (tensor != nullptr) {  // Note [Recorded shapes]
    e.shape_id = intern_shape(r, *tensor);
    e.dtype = tensor->dtype;
  }
  if (recording && r.capacity > 0) {
    r.ring[r.written % r.capacity] = e;
    ++r.written;
  }
  if (debugging) {
    if (kind == MemoryEventKind::Alloc) {
      r.live[e.address] = {e.address,  e.size,     e.requested, e.sequence,     e.time_ns,
                           e.stack_id, e.shape_id, e.pool,      e.device_index, e.dtype};
    } else if (kind == MemoryEventKind::Free) {
      r.live.erase(e.address);
    }
  }
}

// The sink is installed while anyone listens (Note [Memory events when profiling is off]).
void update_sink(Recorder& r) {
  bool on = r.recording.load() || r.debugging.load();
  set_memory_event_sink(on ? &record : nullptr);
}

}  // namespace

void install_stack_capture(StackCapture capture) {
  recorder().capture.store(capture, std::memory_order_release);
}

void start_recording(size_t max_events, StackMode stacks) {
  GENESIS_CHECK_VALUE(max_events > 0, "record", "max_events must be positive, got ", max_events);
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  GENESIS_CHECK(!r.recording.load(), "record",
                "memory recording is already on; stop it before starting another");
  if (r.capacity != max_events) {
    // Default-initialised: the pages of a large ring are only touched as events arrive.
    r.ring.reset(new RecordedEvent[max_events]);
    r.capacity = max_events;
  }
  r.written = 0;
  r.stacks.store(stacks);
  r.recording.store(true);
  update_sink(r);
}

void stop_recording() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.recording.store(false);
  update_sink(r);
}

bool is_recording() { return recorder().recording.load(); }

std::vector<RecordedEvent> recorded_events(uint64_t* dropped) {
  Recorder& r = recorder();
  std::unique_lock<std::mutex> lock(r.mutex);
  uint64_t kept = r.written < r.capacity ? r.written : r.capacity;
  if (dropped != nullptr) *dropped = r.written - kept;
  std::vector<RecordedEvent> out;
  out.reserve(kept);
  for (uint64_t i = r.written - kept; i < r.written; ++i) out.push_back(r.ring[i % r.capacity]);
  lock.unlock();
  // Note [Recorded shapes]: a free takes the shape of the allocation it frees.
  auto key = [](const RecordedEvent& e) {
    return std::tuple<uint8_t, int16_t, uint64_t>(e.pool, e.device_index, e.address);
  };
  std::map<std::tuple<uint8_t, int16_t, uint64_t>, std::pair<uint32_t, int8_t>> live;
  for (RecordedEvent& e : out) {
    if (e.kind == static_cast<uint8_t>(MemoryEventKind::Alloc)) {
      if (e.shape_id != 0) live[key(e)] = {e.shape_id, e.dtype};
    } else if (e.kind == static_cast<uint8_t>(MemoryEventKind::Free)) {
      auto it = live.find(key(e));
      if (it != live.end()) {
        e.shape_id = it->second.first;
        e.dtype = it->second.second;
        live.erase(it);
      }
    }
  }
  return out;
}

void set_debugging(bool on) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (on && !r.debugging.load()) r.live.clear();
  r.debugging.store(on);
  update_sink(r);
}

bool is_debugging() { return recorder().debugging.load(); }

std::vector<LiveAllocation> live_allocations(uint64_t since_sequence) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<LiveAllocation> out;
  for (const auto& [address, a] : r.live)
    if (a.sequence > since_sequence) out.push_back(a);
  return out;
}

std::vector<std::vector<int64_t>> recorded_shapes() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.shapes;
}

uint64_t current_sequence() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.sequence;
}

}  // namespace genesis::memory

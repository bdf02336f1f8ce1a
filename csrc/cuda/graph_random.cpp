// Random draws of CUDA graph captures (cuda/graph_random.h): Note [Random ops in graphs].
#include "cuda/graph_random.h"

#include <cuda_runtime_api.h>

#include <unordered_map>

#include "core/errors.h"
#include "core/graph_capture.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/runtime.h"
#include "kernels/random.cuh"

namespace genesis::cuda {

namespace {

// CUDA's capture id -> the capturing graph's draws; only while the capture is underway. Never
// destroyed: a graph may be destroyed while the process exits.
struct Registry {
  std::mutex mutex;
  std::unordered_map<unsigned long long, GraphRandom*> graphs;
};
Registry& registry() {
  static auto* r = new Registry();
  return *r;
}

// The capture id of `stream`, or 0 when it is not being captured. The legacy default stream
// is never captured (capture_begin refuses it), and asking CUDA about it while another stream
// captures can fail (cudaErrorStreamCaptureImplicit): it is not asked.
unsigned long long capture_id(StreamId stream) {
  if (stream == 0) return 0;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  GENESIS_CUDA_CHECK(
      cudaStreamGetCaptureInfo(reinterpret_cast<cudaStream_t>(stream), &status, &id));
  return status == cudaStreamCaptureStatusActive ? id : 0;
}

}  // namespace

GraphRandom::~GraphRandom() {
  try {
    end();
    clear();
  } catch (...) {  // a destructor must not raise
  }
}

void GraphRandom::begin(int device, unsigned long long id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  device_ = device;
  capture_id_ = id;
  r.graphs[id] = this;
  registered_ = true;
}

void GraphRandom::end() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!registered_) return;
  r.graphs.erase(capture_id_);
  registered_ = false;
}

PhiloxArgs GraphRandom::draw(CounterStream& source, int device, uint64_t n) {
  // Called with the registry's mutex held (captured_draw), so end() cannot race it.
  GENESIS_CHECK(device == device_, "random", "a CUDA graph captured on cuda:", device_,
                " cannot hold random draws on cuda:", device);
  std::lock_guard<std::mutex> lock(mutex_);
  Entry* entry = nullptr;
  for (Entry& e : entries_)
    if (e.source.get() == &source) entry = &e;
  if (entry == nullptr) {
    std::shared_ptr<CounterStream> owner = source.weak_from_this().lock();
    GENESIS_CHECK(owner != nullptr, "random",
                  "a generator drawn from in a CUDA graph capture must be owned by a shared_ptr");
    // Allocated on the capturing stream: from the graph's private pool, alive until clear().
    Tensor buffer = Tensor::empty(Shape{2}, ScalarType::Int64, Device{DeviceType::CUDA, device_});
    entries_.push_back(Entry{std::move(owner), std::move(buffer), 0});
    entry = &entries_.back();
  }
  PhiloxArgs args;
  args.state = static_cast<const uint64_t*>(entry->buffer.data());
  args.offset = entry->consumed;
  entry->consumed += n;
  return args;
}

void GraphRandom::prologue(StreamId stream) {
  // Inside another capture the generators would advance once, at that capture, and its
  // replays would repeat these draws; PyTorch refuses this too.
  GENESIS_CHECK(!graph_capture_underway() || capture_id(stream) == 0, "CUDAGraph.replay",
                "a graph with random ops cannot be replayed while the current stream is being "
                "captured");
  std::lock_guard<std::mutex> lock(mutex_);
  for (Entry& e : entries_) {
    auto [seed, offset] = e.source->advance(e.consumed);
    kernels::launch_write_philox_state(static_cast<uint64_t*>(e.buffer.mutable_data()), seed,
                                       offset, reinterpret_cast<void*>(stream));
    GENESIS_CUDA_CHECK(cudaGetLastError());
  }
}

void GraphRandom::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

bool captured_draw(int device, CounterStream& source, uint64_t n, PhiloxArgs& args) {
  if (!graph_capture_underway() || n == 0) return false;
  DeviceGuard guard(device);
  unsigned long long id = capture_id(current_stream(device));
  if (id == 0) return false;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.graphs.find(id);
  GENESIS_CHECK(it != r.graphs.end(), "random",
                "the current stream is being captured, but not by a genesis CUDA graph: its "
                "random ops would replay the numbers of the capture");
  args = it->second->draw(source, device, n);
  return true;
}

bool current_stream_capturing(int device) {
  if (!graph_capture_underway()) return false;
  if (device < 0) device = current_device();
  DeviceGuard guard(device);
  return capture_id(current_stream(device)) != 0;
}

}  // namespace genesis::cuda

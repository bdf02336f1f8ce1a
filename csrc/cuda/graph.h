#pragma once
// Note [CUDA graphs]
// A CUDAGraph records the work queued on one stream between capture_begin and capture_end
// (cudaStreamBeginCapture/EndCapture) and replays all of it later with one cudaGraphLaunch on
// the current stream, so a chain of small ops costs one launch of host time instead of one per
// op. Replays run the same kernels on the same addresses with the same scalar arguments: the
// caller copies new inputs into the tensors the capture read, and reads results from the
// tensors it wrote. Three things make that safe:
//  - memory: the allocations made on the capturing stream come from a private pool of the
//    device's caching pool, owned by the graph (Note [Graph private pools] in
//    memory/caching_pool.h), so no one else gets the addresses a replay will write; graphs may
//    share a pool (pool=) when they replay in capture order. Pool segments are mapped during
//    the capture with the thread's capture mode relaxed around cudaMalloc (RelaxedCaptureMode):
//    the call is not recorded, and the memory stays mapped until the pool is dead.
//  - waits: every host wait is refused during a capture with a clear error before CUDA sees it
//    (Note [Syncs during capture] in core/graph_capture.h), and the pools query no events then.
//  - order: capture happens on a side stream (CUDA cannot capture the legacy default stream);
//    warming up first (cuBLAS handles, the index error record, first-use setup) is the
//    caller's job, as in PyTorch.
// The capture mode (global, thread_local, relaxed) is CUDA's cudaStreamCaptureMode; genesis's
// own refusal of waits stays process-wide whatever the mode. Random ops draw new numbers at
// every replay, continuing their generators' streams as eager calls would: the captured fills
// read the Philox key and base counter from a buffer the graph rewrites before each launch
// (Note [Random ops in graphs] in cuda/graph_random.h). Autograd through graphed callables
// captures the engine's backward pass as a second graph (Note [Graphed callables] in
// genesis/cuda/graphed_callables.py).
#include <cstdint>
#include <memory>

#include "cuda/stream.h"

namespace genesis::cuda {

using GraphPoolId = uint64_t;  // 0: none; the device pools' private pool ids
// A fresh private pool id, for graph_pool_handle(); unique in the process.
GraphPoolId new_graph_pool_id();

enum class CaptureMode : int { Global = 0, ThreadLocal = 1, Relaxed = 2 };

class Graph {
 public:
  Graph();
  ~Graph();  // resets; never raises
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Starts capturing the current stream of the current device. `pool` 0 makes a new private
  // pool, another id shares that pool.
  void capture_begin(GraphPoolId pool, CaptureMode mode);
  void capture_end();
  // On the current stream of the graph's device; first advances the generators the capture
  // drew from (Note [Random ops in graphs]).
  void replay();
  // replay()'s common case without raising: launches and returns true when the graph holds a
  // capture, is not capturing, captured no random op and the driver's launch succeeded; else
  // returns false having launched nothing, and replay() then does the rest and reports
  // (Note [The replay's own call]).
  bool try_replay() noexcept;
  void reset();              // drops the captured graph and this graph's hold on its pool
  GraphPoolId pool() const;  // 0 before capture_begin and after reset
  bool capturing() const;
  bool captured() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Whether replays launch through the driver's cuGraphLaunch (Note [Driver graph launches]).
bool graph_launch_through_driver();

// Whether `stream` of the device is being captured now.
bool is_stream_capturing(int device_index, StreamId stream);

// For its scope, the calling thread's capture mode is relaxed (cudaThreadExchangeStreamCaptureMode)
// when a capture is underway: for a call CUDA refuses in the global mode that is safe here.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode();
  ~RelaxedCaptureMode();
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  int previous_ = 0;
  bool active_ = false;
};

}  // namespace genesis::cuda

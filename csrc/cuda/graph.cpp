// CUDA graphs (cuda/graph.h): capture, instantiate, replay; Note [CUDA graphs].
#include "cuda/graph.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>

#include "core/errors.h"
#include "core/graph_capture.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/driver_entry.h"
#include "cuda/graph_random.h"
#include "cuda/memory.h"
#include "cuda/runtime.h"
#include "memory/caching_pool.h"

namespace genesis::cuda {

namespace {
std::atomic<GraphPoolId> last_pool_id{0};

cudaStreamCaptureMode to_cuda(CaptureMode mode) {
  switch (mode) {
    case CaptureMode::ThreadLocal:
      return cudaStreamCaptureModeThreadLocal;
    case CaptureMode::Relaxed:
      return cudaStreamCaptureModeRelaxed;
    default:
      return cudaStreamCaptureModeGlobal;
  }
}
// Note [Driver graph launches]: a replay is host cost and little else (issue 19 times it), and
// the driver's cuGraphLaunch skips the runtime's per-call work, as the flat kernels' launches
// do (Note [Driver launches] in kernels/driver_launch.cuh). Standalone probe on an H100 host, a
// captured chain of 100 one-block-sized kernels, median of 300 bursts of 10 launches: 1.92 us
// through the driver against 2.27 and 2.30 us through cudaGraphLaunch (512-byte parameters:
// 1.30 against 1.34 and 1.42 us). Where the driver lacks it or its launch fails, the runtime's
// launch runs and reports. The entry point is asked for at CUDA 10.0, which brought it: asked
// for at 4000 (as driver_entry's other callers are) the runtime finds nothing, and until
// session 10 every replay had gone through cudaGraphLaunch unseen; a test now checks.
using GraphLaunchFn = CUresult (*)(CUgraphExec, CUstream);

GraphLaunchFn driver_graph_launch() {
  static const GraphLaunchFn driver = driver_entry<GraphLaunchFn>("cuGraphLaunch", 10000);
  return driver;
}

cudaError_t launch_graph(cudaGraphExec_t exec, cudaStream_t stream) {
  GraphLaunchFn driver = driver_graph_launch();
  if (driver != nullptr && driver(exec, stream) == CUDA_SUCCESS) return cudaSuccess;
  return cudaGraphLaunch(exec, stream);
}
}  // namespace

struct Graph::State {
  int device = -1;
  StreamId stream = 0;
  GraphPoolId pool = 0;  // held (retained) while nonzero
  bool capturing = false;
  cudaGraphExec_t exec = nullptr;
  GraphRandom random;  // Note [Random ops in graphs]
};

bool graph_launch_through_driver() { return driver_graph_launch() != nullptr; }

GraphPoolId new_graph_pool_id() {
  if (device_count() == 0) no_device();
  return last_pool_id.fetch_add(1, std::memory_order_relaxed) + 1;
}

Graph::Graph() : state_(std::make_unique<State>()) {}

Graph::~Graph() {
  try {
    if (state_->capturing) capture_end();
    reset();
  } catch (...) {  // a destructor must not raise; at exit the driver may be gone already
  }
}

void Graph::capture_begin(GraphPoolId pool, CaptureMode mode) {
  State& s = *state_;
  const char* op = "CUDAGraph.capture_begin";
  GENESIS_CHECK(!s.capturing, op, "this graph is already capturing");
  GENESIS_CHECK(s.exec == nullptr && s.pool == 0, op,
                "this graph already holds a capture: call reset() before capturing again");
  int device = current_device();
  StreamId stream = current_stream(device);
  GENESIS_CHECK(stream != 0, op,
                "cannot capture the default stream: capture on a genesis.cuda.Stream "
                "(genesis.cuda.graph captures on a side stream by default)");
  GENESIS_CHECK(!is_stream_capturing(device, stream), op,
                "the current stream is already being captured by another graph");
  if (pool == 0) pool = new_graph_pool_id();
  allocator(device);  // the device's pool exists from here on
  memory::CachingPool* p = device_pool(device);
  p->retain_pool(pool);
  try {
    p->begin_allocate_to_pool(pool, stream);
  } catch (...) {
    p->release_pool(pool);
    throw;
  }
  begin_graph_capture();
  DeviceGuard guard(device);
  cudaError_t err = cudaStreamBeginCapture(reinterpret_cast<cudaStream_t>(stream), to_cuda(mode));
  unsigned long long capture_id = 0;  // random fills find the graph by it
  if (err == cudaSuccess) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    err = cudaStreamGetCaptureInfo(reinterpret_cast<cudaStream_t>(stream), &status, &capture_id);
    if (err != cudaSuccess) {
      cudaGraph_t dropped = nullptr;
      cudaStreamEndCapture(reinterpret_cast<cudaStream_t>(stream), &dropped);
      if (dropped != nullptr) cudaGraphDestroy(dropped);
    }
  }
  if (err != cudaSuccess) {
    end_graph_capture();
    p->end_allocate_to_pool(pool);
    p->release_pool(pool);
    GENESIS_CUDA_CHECK(err);
  }
  s.random.begin(device, capture_id);
  s.device = device;
  s.stream = stream;
  s.pool = pool;
  s.capturing = true;
}

void Graph::capture_end() {
  State& s = *state_;
  const char* op = "CUDAGraph.capture_end";
  if (!s.capturing && device_count() == 0) no_device();  // as the CPU-only build's stand-in
  GENESIS_CHECK(s.capturing, op, "no capture is underway: call capture_begin first");
  DeviceGuard guard(s.device);
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(reinterpret_cast<cudaStream_t>(s.stream), &graph);
  s.capturing = false;
  s.random.end();
  end_graph_capture();
  device_pool(s.device)->end_allocate_to_pool(s.pool);
  if (err != cudaSuccess) {
    cudaGetLastError();  // the capture is over either way; what it wrote stays in the pool
    s.random.clear();
    GENESIS_FAIL(ErrorKind::Runtime, op, "the capture failed (", cudaGetErrorString(err),
                 "): an operation CUDA cannot capture ran on the captured stream, or a "
                 "call CUDA forbids during a capture ran on another thread");
  }
  err = cudaGraphInstantiate(&s.exec, graph, 0);
  cudaGraphDestroy(graph);  // the executable graph is all a replay needs
  if (err != cudaSuccess) {
    s.exec = nullptr;
    GENESIS_CUDA_CHECK(err);
  }
}

void Graph::replay() {
  State& s = *state_;
  const char* op = "CUDAGraph.replay";
  if (s.exec == nullptr && device_count() == 0) no_device();  // as the CPU-only build's stand-in
  GENESIS_CHECK(!s.capturing, op, "the graph is still capturing: call capture_end first");
  GENESIS_CHECK(s.exec != nullptr, op,
                "nothing was captured: call capture_begin and capture_end (or use "
                "genesis.cuda.graph) first");
  DeviceGuard guard(s.device);
  StreamId stream = current_stream(s.device);
  if (!s.random.empty()) s.random.prologue(stream);
  GENESIS_CUDA_CHECK(launch_graph(s.exec, reinterpret_cast<cudaStream_t>(stream)));
}

bool Graph::try_replay() noexcept {
  State& s = *state_;
  if (s.exec == nullptr || s.capturing || !s.random.empty()) return false;
  GraphLaunchFn driver = driver_graph_launch();
  if (driver == nullptr) return false;
  try {
    DeviceGuard guard(s.device);
    auto stream = reinterpret_cast<CUstream>(current_stream(s.device));
    return driver(reinterpret_cast<CUgraphExec>(s.exec), stream) == CUDA_SUCCESS;
  } catch (...) {  // replay() meets the same error again and raises it
    return false;
  }
}

void Graph::reset() {
  State& s = *state_;
  GENESIS_CHECK(!s.capturing, "CUDAGraph.reset",
                "cannot reset during the capture: call capture_end first");
  if (s.exec != nullptr) {
    DeviceGuard guard(s.device);
    cudaGraphExecDestroy(s.exec);
    s.exec = nullptr;
  }
  s.random.clear();  // the generators and their buffers (before the pool goes)
  if (s.pool != 0) {
    GraphPoolId pool = s.pool;
    s.pool = 0;
    device_pool(s.device)->release_pool(pool);
  }
}

GraphPoolId Graph::pool() const { return state_->pool; }
bool Graph::capturing() const { return state_->capturing; }
bool Graph::captured() const { return state_->exec != nullptr; }

bool is_stream_capturing(int device_index, StreamId stream) {
  DeviceGuard guard(device_index);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  GENESIS_CUDA_CHECK(cudaStreamIsCapturing(reinterpret_cast<cudaStream_t>(stream), &status));
  return status != cudaStreamCaptureStatusNone;
}

RelaxedCaptureMode::RelaxedCaptureMode() {
  if (!graph_capture_underway()) return;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  GENESIS_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  previous_ = static_cast<int>(mode);
  active_ = true;
}

RelaxedCaptureMode::~RelaxedCaptureMode() {
  if (!active_) return;
  auto mode = static_cast<cudaStreamCaptureMode>(previous_);
  cudaThreadExchangeStreamCaptureMode(&mode);
}

}  // namespace genesis::cuda

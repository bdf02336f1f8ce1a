// CUDA graphs in a CPU-only build: capturing needs a device, so it raises no_device()
// (cuda/runtime.h); an empty graph can be made, reset and destroyed.
#include "cuda/graph.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

struct Graph::State {};

GraphPoolId new_graph_pool_id() { no_device(); }
Graph::Graph() : state_(std::make_unique<State>()) {}
Graph::~Graph() = default;
void Graph::capture_begin(GraphPoolId, CaptureMode) { no_device(); }
void Graph::capture_end() { no_device(); }
void Graph::replay() { no_device(); }
bool Graph::try_replay() noexcept { return false; }
bool graph_launch_through_driver() { return false; }
void Graph::reset() {}
GraphPoolId Graph::pool() const { return 0; }
bool Graph::capturing() const { return false; }
bool Graph::captured() const { return false; }
bool is_stream_capturing(int, StreamId) { no_device(); }
RelaxedCaptureMode::RelaxedCaptureMode() = default;
RelaxedCaptureMode::~RelaxedCaptureMode() = default;

}  // namespace genesis::cuda

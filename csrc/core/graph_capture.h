#pragma once
// Note [Syncs during capture]
// While a CUDA stream is being captured into a graph (Note [CUDA graphs] in cuda/graph.h) its
// work is recorded, not run: a host wait for it would wait for nothing, and CUDA forbids the
// call anyway (cudaStreamSynchronize, cudaEventQuery, a copy to the host: in the default
// "global" capture mode, from any thread), answering with an error that also invalidates the
// capture. So the graph code counts the captures underway here, in core, and every place that
// would make the host wait (note_implicit_sync, the explicit synchronize and query calls) asks
// first and raises "[op] cannot synchronize while a CUDA graph is being captured" before
// touching CUDA: the capture stays valid, and ends normally when the caller's `with` block
// unwinds. The count is process-wide, as the global mode is; one relaxed atomic load per wait.
namespace genesis {

void begin_graph_capture();  // a capture started (cuda/graph.cpp)
void end_graph_capture();    // ... and ended, successfully or not
bool graph_capture_underway();

// Raises RuntimeError "[op] cannot synchronize while a CUDA graph is being captured ..." while a
// capture is underway; does nothing otherwise.
void check_not_capturing(const char* op);

}  // namespace genesis

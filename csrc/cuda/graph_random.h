#pragma once
// Note [Random ops in graphs]
// A random fill passes its Philox key and first counter to the kernel (Note [Generators] in
// ops/generator.h). Baked into a captured launch, those values would make every replay of a
// CUDA graph (Note [CUDA graphs] in cuda/graph.h) draw the numbers of the capture. So, as in
// PyTorch, a fill launched on a stream that a genesis graph is capturing takes its counters
// from the graph instead of from its generator:
//  - the graph keeps, per generator the capture drew from, a device buffer {seed, base offset}
//    and the number of counters the capture consumed so far; the fill's kernel gets a pointer
//    to the buffer and, by value, that running count (its intra-graph offset), and reads
//    seed = buf[0], counter = buf[1] + intra-graph offset + i on the device. The generator is
//    not advanced during the capture (PyTorch's observable behaviour: get_state after
//    capture_end equals get_state before capture_begin).
//  - replay() first, per generator, reads (seed, offset) and advances the offset by the whole
//    capture's count (one locked step of the generator), writes the pair into the buffer with
//    a tiny kernel on the replay stream (the values are kernel arguments, so no host buffer
//    must outlive the launch), then launches the graph. Replay k therefore draws exactly what
//    the k-th eager run of the captured code would draw from the same generator state, eager
//    code after a replay continues the stream, and a manual_seed between replays takes effect
//    at the next replay. A graph that drew nothing pays one empty() check at replay.
//  - the capture is found by CUDA's capture id of the fill's stream (cudaStreamGetCaptureInfo),
//    so a side stream that joined the capture draws from the same graph. Eager fills pay one
//    relaxed atomic load (graph_capture_underway, core/graph_capture.h) and a null pointer.
//  - reading or changing a generator's state (manual_seed, seed, initial_seed, get_state,
//    set_state, hence fork_rng) while the current stream is being captured raises, as in
//    PyTorch: the captured draws would not see it. So does replaying a graph that drew random
//    numbers while the current stream is being captured (its generators would advance once).
// poisson and multinomial validate their inputs with a wait for the device, which a capture
// cannot hold (Note [Syncs during capture]): on CUDA they raise "[op] cannot be captured in a
// CUDA graph" up front (ops/distributions.cpp). Random fills of CPU tensors inside a capture
// run at once and advance their generator, as in PyTorch.
// Unlike PyTorch, generators need no register_generator_state: the first captured draw of a
// generator registers it with the graph, which keeps it alive until reset().
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "cuda/stream.h"

namespace genesis::cuda {

// A stream of Philox counters that graphs draw from at replay; ops::Generator is one.
class CounterStream : public std::enable_shared_from_this<CounterStream> {
 public:
  virtual ~CounterStream() = default;
  // The current (seed, offset), then the offset advances by n; one atomic step.
  virtual std::pair<uint64_t, uint64_t> advance(uint64_t n) = 0;
};

// The Philox arguments of one CUDA random fill: eager fills pass seed and offset; a captured
// fill passes `state`, the graph's device buffer {seed, base offset}, and its intra-graph offset
// in `offset` (the kernel then ignores `seed`).
struct PhiloxArgs {
  uint64_t seed = 0;
  uint64_t offset = 0;
  const uint64_t* state = nullptr;
};

// The random draws of one capture (a Graph owns one).
class GraphRandom {
 public:
  GraphRandom() = default;
  ~GraphRandom();
  GraphRandom(const GraphRandom&) = delete;
  GraphRandom& operator=(const GraphRandom&) = delete;

  // Fills launched on streams of CUDA's capture `capture_id` (begun just before, on `device`)
  // draw from this graph.
  void begin(int device, unsigned long long capture_id);
  void end();  // ... no longer; the record stays for replay
  // Before a replay on `stream`: writes each generator's (seed, offset) into its buffer and
  // advances the generator by what the capture consumed.
  void prologue(StreamId stream);
  void clear();  // forgets the generators and frees the buffers
  bool empty() const { return entries_.empty(); }
  // A captured fill of n counters from `source` on `device` (the graph's).
  PhiloxArgs draw(CounterStream& source, int device, uint64_t n);

 private:
  struct Entry {
    std::shared_ptr<CounterStream> source;
    Tensor buffer;          // int64 {seed, base offset} on the graph's device
    uint64_t consumed = 0;  // counters drawn by the capture so far
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
  int device_ = -1;
  unsigned long long capture_id_ = 0;
  bool registered_ = false;
};

// For a fill of n counters from `source` on the current stream of `device`: true, with `args`
// set, when that stream is being captured by a genesis graph; false otherwise (the caller then
// draws eagerly). One relaxed atomic load when no capture is underway anywhere.
bool captured_draw(int device, CounterStream& source, uint64_t n, PhiloxArgs& args);

// Whether the current stream of `device` (-1: the current device) is being captured; false
// without a GPU, and one relaxed atomic load when no capture is underway anywhere.
bool current_stream_capturing(int device = -1);

}  // namespace genesis::cuda

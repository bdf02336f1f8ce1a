#pragma once
// Note [Generators]: a Generator is a Philox4x32-10 stream: a seed (the key) and an offset (the
// next counter). Each random op reserves as many counters as it needs and fills its output from
// them, so the numbers depend only on (seed, offset) and are the same on the CPU and on any GPU.
// genesis.Generator objects are independent streams; the default generator serves every call
// without generator=. A generator's device is recorded for PyTorch's API (Generator("cuda")),
// but any generator may fill a tensor on any device, the same way. A fill captured into a CUDA
// graph takes its counters from the graph at each replay instead (Note [Random ops in graphs]
// in cuda/graph_random.h); the state calls below raise while the current stream is captured.
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/device.h"
#include "cuda/graph_random.h"

namespace genesis::ops {

// PyTorch's default seed, so a fresh process starts from a known state.
constexpr uint64_t kDefaultSeed = 67280421310721ull;

struct Counters {
  uint64_t seed, offset;
};

// Always owned by a shared_ptr: a graph that captured its draws keeps it alive.
class Generator final : public cuda::CounterStream {
 public:
  explicit Generator(Device device = Device{}) : device_(device) {}

  void manual_seed(uint64_t seed);  // also rewinds the offset to 0
  uint64_t initial_seed() const;
  uint64_t seed();  // a fresh seed from std::random_device; returns it
  // Hands out the next n counters; concurrent calls get disjoint ranges.
  Counters reserve(int64_t n);
  Counters state() const;
  void set_state(Counters state);
  std::pair<uint64_t, uint64_t> advance(uint64_t n) override;  // a graph's replay
  Device device() const { return device_; }

 private:
  mutable std::mutex mutex_;
  uint64_t seed_ = kDefaultSeed;
  uint64_t offset_ = 0;
  Device device_;
};

// The generator of every random call made without one; shared for the life of the process.
const std::shared_ptr<Generator>& default_generator();
// `gen`, or the default generator when null.
Generator& generator_or_default(Generator* gen);

// The counters of a CUDA fill of n items on `device` from `gen`: reserved now, or, while the
// device's current stream is being captured, the capturing graph's (Note [Random ops in graphs]).
cuda::PhiloxArgs cuda_counters(Generator& gen, int device, int64_t n);

}  // namespace genesis::ops

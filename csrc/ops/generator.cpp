#include "ops/generator.h"

#include <random>

#include "core/errors.h"

namespace genesis::ops {

namespace {

// PyTorch refuses these too: the draws of a capture read the state at replay, not now.
void check_not_captured(const char* op) {
  GENESIS_CHECK(!cuda::current_stream_capturing(), op,
                "cannot read or change a generator's state while a CUDA graph is being "
                "captured: the captured random ops take it at each replay (call it before "
                "capture_begin or after capture_end)");
}

}  // namespace

void Generator::manual_seed(uint64_t seed) {
  check_not_captured("manual_seed");
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::initial_seed() const {
  check_not_captured("initial_seed");
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

uint64_t Generator::seed() {
  check_not_captured("seed");
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  manual_seed(s);
  return s;
}

Counters Generator::reserve(int64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  Counters c{seed_, offset_};
  offset_ += static_cast<uint64_t>(n);
  return c;
}

std::pair<uint64_t, uint64_t> Generator::advance(uint64_t n) {
  Counters c = reserve(static_cast<int64_t>(n));
  return {c.seed, c.offset};
}

Counters Generator::state() const {
  check_not_captured("get_state");
  std::lock_guard<std::mutex> lock(mutex_);
  return {seed_, offset_};
}

void Generator::set_state(Counters state) {
  check_not_captured("set_state");
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = state.seed;
  offset_ = state.offset;
}

const std::shared_ptr<Generator>& default_generator() {
  // Never destroyed: random calls from other threads may run while the process exits.
  static auto* g = new std::shared_ptr<Generator>(std::make_shared<Generator>());
  return *g;
}

Generator& generator_or_default(Generator* gen) { return gen ? *gen : *default_generator(); }

cuda::PhiloxArgs cuda_counters(Generator& gen, int device, int64_t n) {
  cuda::PhiloxArgs args;
  if (cuda::captured_draw(device, gen, static_cast<uint64_t>(n), args)) return args;
  Counters c = gen.reserve(n);
  args.seed = c.seed;
  args.offset = c.offset;
  return args;
}

}  // namespace genesis::ops

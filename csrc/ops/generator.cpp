#include "ops/generator.h"

#include <random>

namespace genesis::ops {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

uint64_t Generator::seed() {
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

Counters Generator::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {seed_, offset_};
}

void Generator::set_state(Counters state) {
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

}  // namespace genesis::ops

// Graph random draws in a CPU-only build: nothing is ever captured, so every fill is eager.
#include "cuda/graph_random.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

GraphRandom::~GraphRandom() = default;
void GraphRandom::begin(int, unsigned long long) { no_device(); }
void GraphRandom::end() {}
void GraphRandom::prologue(StreamId) { no_device(); }
void GraphRandom::clear() { entries_.clear(); }
PhiloxArgs GraphRandom::draw(CounterStream&, int, uint64_t) { no_device(); }
bool captured_draw(int, CounterStream&, uint64_t, PhiloxArgs&) { return false; }
bool current_stream_capturing(int) { return false; }

}  // namespace genesis::cuda

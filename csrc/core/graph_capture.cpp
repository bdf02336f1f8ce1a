#include "core/graph_capture.h"

#include <atomic>

#include "core/errors.h"

namespace genesis {

namespace {
std::atomic<int> captures{0};  // Note [Syncs during capture]
}  // namespace

void begin_graph_capture() { captures.fetch_add(1, std::memory_order_relaxed); }
void end_graph_capture() { captures.fetch_sub(1, std::memory_order_relaxed); }
bool graph_capture_underway() { return captures.load(std::memory_order_relaxed) > 0; }

void check_not_capturing(const char* op) {
  if (captures.load(std::memory_order_relaxed) == 0) return;
  GENESIS_FAIL(ErrorKind::Runtime, op,
               "cannot synchronize while a CUDA graph is being captured: the captured work has "
               "not run, and CUDA forbids the wait during a capture (Note [Syncs during capture]); "
               "move this call out of the captured region");
}

}  // namespace genesis

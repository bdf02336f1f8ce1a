#include "cpu/parallel.h"

#include <pthread.h>

#include <atomic>

namespace genesis::cpu {

namespace {
std::atomic<bool> forked_child{false};
void mark_child() { forked_child.store(true, std::memory_order_relaxed); }
}  // namespace

void install_fork_handlers() {
  static const bool installed = [] { return pthread_atfork(nullptr, nullptr, mark_child) == 0; }();
  (void)installed;
}

bool in_forked_child() { return forked_child.load(std::memory_order_relaxed); }

}  // namespace genesis::cpu

#include "core/caller_lock.h"

#include <atomic>

namespace genesis {

namespace {
// Written once at module initialisation, before any thread computes; read on every region.
std::atomic<void* (*)()> release_hook{nullptr};
std::atomic<void (*)(void*)> reacquire_hook{nullptr};
}  // namespace

void install_caller_lock_hooks(CallerLockHooks hooks) {
  reacquire_hook.store(hooks.reacquire, std::memory_order_release);
  release_hook.store(hooks.release, std::memory_order_release);
}

UnlockedRegion::UnlockedRegion() : state_(nullptr) {
  if (auto release = release_hook.load(std::memory_order_acquire)) state_ = release();
}

UnlockedRegion::~UnlockedRegion() {
  if (state_ != nullptr) reacquire_hook.load(std::memory_order_acquire)(state_);
}

std::unique_lock<std::mutex> lock_letting_caller_run(std::mutex& mutex) {
  std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
  if (!lock.owns_lock()) {
    UnlockedRegion unlocked;  // Note [Waiting for a lock]
    lock.lock();
  }
  return lock;
}

}  // namespace genesis

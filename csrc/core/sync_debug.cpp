#include "core/sync_debug.h"

#include <atomic>
#include <string>

#include "core/errors.h"
#include "core/graph_capture.h"

namespace genesis {

namespace {

std::atomic<int> mode{static_cast<int>(SyncDebugMode::Default)};
std::atomic<SyncWarningHook> warning_hook{nullptr};

}  // namespace

void set_sync_debug_mode(SyncDebugMode m) {
  mode.store(static_cast<int>(m), std::memory_order_relaxed);
}

SyncDebugMode sync_debug_mode() {
  return static_cast<SyncDebugMode>(mode.load(std::memory_order_relaxed));
}

void set_sync_warning_hook(SyncWarningHook hook) {
  warning_hook.store(hook, std::memory_order_relaxed);
}

void note_implicit_sync(const char* op, int device) {
  check_not_capturing(op);  // Note [Syncs during capture]
  auto m = static_cast<SyncDebugMode>(mode.load(std::memory_order_relaxed));
  if (m == SyncDebugMode::Default) return;
  std::string what =
      str_cat("synchronizes the host with cuda:", device, " (genesis.cuda.set_sync_debug_mode is '",
              m == SyncDebugMode::Error ? "error" : "warn", "')");
  if (m == SyncDebugMode::Error) GENESIS_FAIL(ErrorKind::Runtime, op, what);
  if (SyncWarningHook hook = warning_hook.load(std::memory_order_relaxed))
    hook(str_cat("[", op, "] ", what).c_str());
}

}  // namespace genesis

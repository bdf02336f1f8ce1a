#pragma once
// Note [Sync debug mode]: genesis.cuda.set_sync_debug_mode("warn" | "error") reports every
// operation that makes the host wait for a device on the caller's behalf: a copy to the host
// (item(), tolist(), cpu(), numpy()), a copy from pinned memory, the count of a mask, the
// read-back of an index bounds check. An explicit wait (synchronize(), Stream.synchronize,
// Event.synchronize) is what the caller asked for and is never reported, as in PyTorch. The
// backend calls note_implicit_sync just before it waits; "error" raises there (nothing has been
// waited for or changed yet), "warn" hands the message to the hook the front end installed (a
// Python warning). The mode is one relaxed atomic load on each of those paths.
namespace genesis {

enum class SyncDebugMode : int { Default = 0, Warn = 1, Error = 2 };

void set_sync_debug_mode(SyncDebugMode mode);
SyncDebugMode sync_debug_mode();

// Called with each "warn" message; may throw (a warning filter that turns it into an error).
using SyncWarningHook = void (*)(const char* message);
void set_sync_warning_hook(SyncWarningHook hook);

// `op` is about to wait for CUDA device `device`: raises RuntimeError under "error", warns under
// "warn", does nothing under "default"; raises during a graph capture whatever the mode (Note
// [Syncs during capture] in core/graph_capture.h).
void note_implicit_sync(const char* op, int device);

}  // namespace genesis

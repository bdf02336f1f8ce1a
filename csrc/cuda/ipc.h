#pragma once
// CUDA storages between processes by IPC handles (Note [CUDA storages between processes] in
// cuda/ipc.cpp): what genesis/multiprocessing/reductions.py sends and rebuilds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/storage.h"

namespace genesis::cuda {

struct IpcExport {
  std::string memory;  // cudaIpcMemHandle_t of the allocation (a pool segment) holding the storage
  int64_t offset;      // the storage's first byte, from the allocation's start
  std::string event;   // cudaIpcEventHandle_t of `event_id`
  uintptr_t event_id;  // the event (the sender keeps it until the receiver has waited on it)
};

// The handles of a CUDA storage's memory, and an interprocess event recorded on its device's
// current stream behind the work queued so far.
IpcExport export_storage(const Storage& storage);
// Destroys an exported event (once the receiver no longer needs it).
void destroy_exported_event(uintptr_t event_id);
// The storage over another process's memory: its allocation opened once per process (handle),
// the device's current stream made to wait for the sender's event. `release_counter`, a CPU
// storage of two int64 in shared memory, gets this process's id in [1] now and its [0] set to
// 0 when the storage (and every view of it) is gone, which tells the sender to let the memory go.
Storage import_storage(const std::string& memory, int64_t offset, size_t nbytes, int device,
                       const std::string& event, const Storage& release_counter);

}  // namespace genesis::cuda

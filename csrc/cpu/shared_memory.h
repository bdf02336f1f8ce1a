#pragma once
// CPU storages in shared memory (Note [Shared memory storages]): what share_memory_() and the
// multiprocessing pickler (genesis/multiprocessing) use to hand a tensor's memory to another
// process without copying it.
#include <cstddef>

#include "core/storage.h"

namespace genesis::cpu {

// Moves a CPU storage's bytes into shared memory, in place: every tensor and view of it now
// reads and writes the shared pages. Nothing happens when it is there already.
void share_memory_(const Storage& storage);
// Whether the storage's memory is shared memory that another process can map (share_fd).
bool in_shared_memory(const Storage& storage);
// The file descriptor of the storage's shared memory (owned by the storage: dup it to keep it);
// the storage must be in shared memory.
int share_fd(const Storage& storage);
// The storage over the shared memory behind `fd` (of at least nbytes bytes), mapped once per
// process: a second call for the same memory (any descriptor of it) gives the same storage while
// it lives, so views sent separately stay views of one storage. `fd` stays the caller's.
Storage storage_from_share_fd(int fd, size_t nbytes);

}  // namespace genesis::cpu

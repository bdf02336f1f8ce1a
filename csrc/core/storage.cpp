#include "core/storage.h"

#include "core/errors.h"

namespace genesis {

Storage Storage::allocate(size_t nbytes, Device device) {
  return own(allocator_for(device)->allocate(nbytes), nbytes);
}

Storage Storage::own(DataPtr data, size_t nbytes) {
  return Storage(std::make_shared<StorageImpl>(std::move(data), nbytes, true, true));
}

Storage Storage::wrap(DataPtr data, size_t nbytes, bool writable) {
  return Storage(std::make_shared<StorageImpl>(std::move(data), nbytes, writable));
}

// Reached only by a write path without its own check_writable (Note [Read-only storages]).
void StorageImpl::refuse_write() {
  GENESIS_FAIL(ErrorKind::Value, "write",
               "cannot write into a read-only tensor: its memory is a read-only buffer");
}

}  // namespace genesis

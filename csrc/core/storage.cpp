#include "core/storage.h"

namespace genesis {

Storage Storage::allocate(size_t nbytes, Device device) {
  return wrap(allocator_for(device)->allocate(nbytes), nbytes);
}

Storage Storage::wrap(DataPtr data, size_t nbytes) {
  return Storage(std::make_shared<StorageImpl>(std::move(data), nbytes));
}

}  // namespace genesis

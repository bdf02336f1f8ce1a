// Copies of a CPU-only build: everything raises no_device() (cuda/copy.h).
#include "cuda/copy.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

bool can_access_peer(int, int) { no_device(); }
void copy_bytes(void*, Device, const void*, Device, size_t) { no_device(); }
void copy_bytes_async(void*, const void*, size_t, StreamId, int) { no_device(); }
void copy(const Tensor&, const Tensor&) { no_device(); }

}  // namespace genesis::cuda

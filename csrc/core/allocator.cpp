#include "core/allocator.h"

#include "cuda/backend.h"

namespace genesis {

Allocator* allocator_for(Device device) {
  if (device.is_cpu()) return cpu_allocator();
  return cuda::allocator(device.index);
}

}  // namespace genesis

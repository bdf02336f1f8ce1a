#include "core/allocator.h"

#include "core/device_backend.h"

namespace genesis {

Allocator* allocator_for(Device device) {
  if (device.is_cpu()) return cpu_allocator();
  return device_backend(device.type).allocator(device.index);
}

}  // namespace genesis

#include "core/allocator.h"

#include <atomic>

#include "core/device_backend.h"

namespace genesis {

namespace {
std::atomic<Allocator*> cpu_tensor_override{nullptr};  // Note [Pinned CPU tensors]
}

void set_cpu_tensor_allocator(Allocator* allocator) {
  cpu_tensor_override.store(allocator, std::memory_order_release);
}

Allocator* cpu_tensor_allocator() {
  Allocator* a = cpu_tensor_override.load(std::memory_order_relaxed);
  return a != nullptr ? a : cpu_allocator();
}

Allocator* allocator_for(Device device) {
  if (device.is_cpu()) return cpu_tensor_allocator();
  return device_backend(device.type).allocator(device.index);
}

}  // namespace genesis

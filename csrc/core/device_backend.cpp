#include "core/device_backend.h"

#include <array>

#include "core/errors.h"

namespace genesis {

namespace {
// Written once at module initialisation, before any tensor exists; read without a lock after.
std::array<DeviceBackend, 2> backends;
}  // namespace

void register_device_backend(DeviceType type, const DeviceBackend& backend) {
  backends[static_cast<size_t>(type)] = backend;
}

const DeviceBackend& device_backend(DeviceType type) {
  const DeviceBackend& b = backends[static_cast<size_t>(type)];
  GENESIS_CHECK(b.allocator != nullptr, "device", "no backend is registered for device type ",
                Device{type, -1}.str());
  return b;
}

}  // namespace genesis

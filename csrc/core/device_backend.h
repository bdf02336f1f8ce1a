#pragma once
// Note [Device backends]
// Core knows devices only through this registry: what a non-CPU device needs from core (its
// allocator, and how "cuda" becomes "cuda:<current>") is a table of plain functions that the
// backend registers by an explicit call at module initialisation (cuda::register_backend() from
// python/module.cpp). Self-registering static objects would be dropped by the static library
// link, and an explicit call keeps the order visible. A CPU-only build registers the stubs of
// csrc/cuda/no_cuda_runtime.cpp, which raise the one "no CUDA device" error, so core never
// needs an #ifdef or a CUDA header.
#include "core/allocator.h"
#include "core/device.h"

namespace genesis {

struct DeviceBackend {
  // The allocator of one device of this type (the device's caching pool).
  Allocator* (*allocator)(int device_index) = nullptr;
  // The device with a concrete index ("cuda" -> "cuda:<current>"), checked to exist.
  Device (*resolve)(Device device) = nullptr;
};

void register_device_backend(DeviceType type, const DeviceBackend& backend);
// The registered backend; raises RuntimeError naming the device type when none is.
const DeviceBackend& device_backend(DeviceType type);

}  // namespace genesis

#pragma once
// The caching pools of each CUDA device and of pinned host memory (the algorithm is
// csrc/memory/caching_pool.h; Note [CUDA backend layout] in cuda/runtime.h).
#include "core/allocator.h"
#include "cuda/stream.h"

namespace genesis::memory {
class CachingPool;
}

namespace genesis::cuda {

Allocator* allocator(int device_index);
memory::CachingPool* device_pool(int device_index);  // nullptr before the device is used
memory::CachingPool* pinned_pool();                  // nullptr without CUDA
Allocator* pinned_allocator();
bool is_pinned(const void* ptr);
// Marks that `stream` uses the memory of `data` (a pool block), for record_stream.
void record_stream(const DataPtr& data, StreamId stream);

}  // namespace genesis::cuda

// The pools of a CPU-only build: there are none (cuda/memory.h).
#include "cuda/memory.h"
#include "cuda/runtime.h"

namespace genesis::cuda {

Allocator* allocator(int) { no_device(); }
memory::CachingPool* device_pool(int) { return nullptr; }
memory::CachingPool* pinned_pool() { return nullptr; }
Allocator* pinned_allocator() { no_device(); }
Allocator* pinned_cpu_tensor_allocator() { return nullptr; }
bool is_pinned(const void*) { return false; }
void record_stream(const DataPtr&, StreamId) {}
void record_pinned_use(const DataPtr&, StreamId) {}

}  // namespace genesis::cuda

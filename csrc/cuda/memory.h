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
// CPU tensors' memory while genesis.cpu.enable_pinned_memory is on (Note [Pinned CPU tensors]
// in core/allocator.h): the pinned pool, or the heap in a forked child or when pinned memory
// runs out. nullptr without CUDA.
Allocator* pinned_cpu_tensor_allocator();
bool is_pinned(const void* ptr);
// Marks that `stream` uses the memory of `data` (a pool block), for record_stream.
void record_stream(const DataPtr& data, StreamId stream);
// Marks that a copy queued on `stream` reads or writes the pinned host memory of `data` (a
// block of the pinned pool; other memory is left alone): the block is handed out again only
// after that copy, whatever the stream (Note [Pinned blocks wait for their copies]).
void record_pinned_use(const DataPtr& data, StreamId stream);

}  // namespace genesis::cuda

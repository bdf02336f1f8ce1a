// CUDA device memory through the caching pool (csrc/memory): one pool per device, created on
// first use. Tensors get blocks on the current stream; freeing a tensor returns its block.
#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>

#include "core/graph_capture.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/graph.h"
#include "cuda/memory.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "memory/caching_pool.h"

namespace genesis::cuda {

namespace {

class DeviceBackend final : public memory::RawBackend {
 public:
  explicit DeviceBackend(int index) : index_(index) {}
  void* raw_alloc(size_t nbytes) override {
    DeviceGuard guard(index_);
    void* ptr = nullptr;
    RelaxedCaptureMode relaxed;  // Note [CUDA graphs]: a segment mapped during a capture
    cudaError_t err = cudaMalloc(&ptr, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // out of memory is an answer here, not an error
      return nullptr;
    }
    GENESIS_CUDA_CHECK(err);
    return ptr;
  }
  void raw_free(void* ptr, size_t) override {
    DeviceGuard guard(index_);
    GENESIS_CUDA_CHECK(cudaFree(ptr));
  }
  size_t total_bytes() override {
    size_t free_b = 0, total_b = 0;
    memory_info(index_, &free_b, &total_b);
    return total_b;
  }
  size_t free_bytes() override {
    size_t free_b = 0, total_b = 0;
    memory_info(index_, &free_b, &total_b);
    return free_b;
  }
  memory::EventId record_event(memory::StreamId stream) override {
    EventId e = create_event(index_, false, false);
    cuda::record_event(e, stream, index_);
    return e;
  }
  bool query_event(memory::EventId event) override { return cuda::query_event(event); }
  void release_event(memory::EventId event) override { destroy_event(event); }
  std::string describe() override { return "CUDA device cuda:" + std::to_string(index_); }
  bool capture_underway() const override { return graph_capture_underway(); }

 private:
  int index_;
};

void free_block(void* ptr, void* context) {
  // The parent's device memory means nothing in a forked child: drop the block there (Note
  // [CUDA after fork] in cuda/runtime.h); the driver would fail every call.
  if (forked_after_cuda_started()) return;
  auto* block = static_cast<memory::Block*>(context);
  block->pool->free(block);
}

class DeviceAllocator final : public Allocator {
 public:
  explicit DeviceAllocator(int index)
      : index_(index),
        backend_(index),
        pool_(&backend_, {MemoryPoolKind::Cuda, static_cast<int16_t>(index)}) {}
  DataPtr allocate(size_t nbytes) override {
    Device device{DeviceType::CUDA, index_};
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, device);
    memory::Block* block = pool_.allocate(nbytes, current_stream(index_));
    return DataPtr(block->ptr, block, &free_block, device);
  }
  memory::CachingPool* pool() { return &pool_; }

 private:
  int index_;
  DeviceBackend backend_;
  memory::CachingPool pool_;
};

std::array<std::atomic<DeviceAllocator*>, kMaxCudaDevices> allocators{};
std::mutex create_mutex;

}  // namespace

Allocator* allocator(int device_index) {
  int index = resolve(Device{DeviceType::CUDA, device_index}).index;
  DeviceAllocator* a = allocators[index].load(std::memory_order_acquire);
  if (a != nullptr) return a;
  std::lock_guard<std::mutex> lock(create_mutex);
  a = allocators[index].load();
  if (a == nullptr) {
    // Never deleted: blocks may be freed during interpreter shutdown, after statics are gone.
    a = new DeviceAllocator(index);
    allocators[index].store(a, std::memory_order_release);
  }
  return a;
}

memory::CachingPool* device_pool(int device_index) {
  if (device_index < 0 || device_index >= kMaxCudaDevices) return nullptr;
  DeviceAllocator* a = allocators[device_index].load(std::memory_order_acquire);
  return a ? a->pool() : nullptr;
}

void record_stream(const DataPtr& data, StreamId stream) {
  if (data.deleter() != &free_block) return;  // memory genesis does not pool
  auto* block = static_cast<memory::Block*>(data.context());
  block->pool->record_stream(block, stream);
}

}  // namespace genesis::cuda

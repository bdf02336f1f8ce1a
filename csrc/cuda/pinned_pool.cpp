// Page-locked host memory through the caching pool, so host<->device copies from it can be
// truly asynchronous. Blocks are cached on stream 0.
//
// Note [Pinned blocks wait for their copies]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A device block freed while a kernel queued on its stream still uses it can be handed out
// again at once: the next user's work is queued behind that kernel on the same stream. A pinned
// block cannot: its next user is the host (a DataLoader's next batch, load()'s next entry),
// whose writes no stream orders, so a block freed while a non_blocking copy of it is still
// queued would be overwritten before the copy reads it (or read before the copy writes it). So
// every asynchronous copy records its stream on the block (record_pinned_use), on stream 0 as
// on any other, and freeing the block waits for an event recorded there, as PyTorch's host
// allocator does.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <mutex>

#include "core/errors.h"
#include "core/graph_capture.h"
#include "cuda/check.h"
#include "cuda/copy.h"
#include "cuda/graph.h"
#include "cuda/memory.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "memory/caching_pool.h"

namespace genesis::cuda {

namespace {

class PinnedBackend final : public memory::RawBackend {
 public:
  void* raw_alloc(size_t nbytes) override {
    void* ptr = nullptr;
    RelaxedCaptureMode relaxed;  // Note [CUDA graphs]
    cudaError_t err = cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return nullptr;
    }
    GENESIS_CUDA_CHECK(err);
    return ptr;
  }
  void raw_free(void* ptr, size_t) override { GENESIS_CUDA_CHECK(cudaFreeHost(ptr)); }
  size_t total_bytes() override {
    return static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) *
           static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
  }
  size_t free_bytes() override {
    return static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) *
           static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
  }
  memory::EventId record_event(memory::StreamId stream) override {
    int device = 0;
    GENESIS_CUDA_CHECK(cudaGetDevice(&device));
    EventId e = create_event(device, false, false);
    cuda::record_event(e, stream, device);
    return e;
  }
  bool query_event(memory::EventId event) override { return cuda::query_event(event); }
  void release_event(memory::EventId event) override { destroy_event(event); }
  std::string describe() override { return "pinned host memory"; }
  bool capture_underway() const override { return graph_capture_underway(); }
};

void free_pinned(void* ptr, void* context) {
  if (forked_after_cuda_started()) return;  // Note [CUDA after fork] in cuda/runtime.h
  auto* block = static_cast<memory::Block*>(context);
  block->pool->free(block);
}

class PinnedAllocator final : public Allocator {
 public:
  PinnedAllocator() : pool_(&backend_, {MemoryPoolKind::Pinned, -1}) {}
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, kCPU);
    if (device_count() == 0) no_device();  // pinned memory needs the driver of a GPU
    memory::Block* block = pool_.allocate(nbytes, 0);
    return DataPtr(block->ptr, block, &free_pinned, kCPU);
  }
  memory::CachingPool* pool() { return &pool_; }

 private:
  PinnedBackend backend_;
  memory::CachingPool pool_;
};

PinnedAllocator* instance() {
  static auto* a = new PinnedAllocator();  // never deleted, like the device pools
  return a;
}

// Note [Pinned CPU tensors] in core/allocator.h. Pinned memory is a convenience here, not a
// promise: a forked child (whose driver state is the parent's) and a request the pinned pool
// cannot serve get ordinary heap memory.
class PinnedCpuTensorAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0 || forked_after_cuda_started()) return cpu_allocator()->allocate(nbytes);
    try {
      return instance()->allocate(nbytes);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::OutOfMemory) throw;
      return cpu_allocator()->allocate(nbytes);
    }
  }
};

}  // namespace

Allocator* pinned_allocator() { return instance(); }

void record_pinned_use(const DataPtr& data, StreamId stream) {
  if (data.deleter() != &free_pinned) return;  // pinned memory genesis does not pool
  auto* block = static_cast<memory::Block*>(data.context());
  block->pool->record_host_use(block, stream);
}

Allocator* pinned_cpu_tensor_allocator() {
  static auto* a = new PinnedCpuTensorAllocator();
  return a;
}
memory::CachingPool* pinned_pool() { return instance()->pool(); }

bool is_pinned(const void* ptr) {
  if (ptr == nullptr || device_count() == 0) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace genesis::cuda

#pragma once
// The allocator interface every memory source implements (the CPU heap now, the caching pools of
// csrc/memory later), and DataPtr: a pointer with the means to give it back.
#include <cstddef>
#include <utility>

#include "core/device.h"

namespace genesis {

// A raw pointer plus how to free it. The deleter is a plain function with a context pointer so
// that handing out memory costs no heap allocation of its own.
class DataPtr {
 public:
  using Deleter = void (*)(void* ptr, void* context);

  DataPtr() = default;
  DataPtr(void* ptr, void* context, Deleter deleter, Device device)
      : ptr_(ptr), context_(context), deleter_(deleter), device_(device) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { swap(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    DataPtr tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  ~DataPtr() {
    if (deleter_) deleter_(ptr_, context_);
  }

  void* get() const { return ptr_; }
  void* context() const { return context_; }
  Deleter deleter() const { return deleter_; }
  Device device() const { return device_; }

 private:
  void swap(DataPtr& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(context_, o.context_);
    std::swap(deleter_, o.deleter_);
    std::swap(device_, o.device_);
  }
  void* ptr_ = nullptr;
  void* context_ = nullptr;
  Deleter deleter_ = nullptr;
  Device device_ = kCPU;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory for nbytes (nbytes may be 0); raises on failure.
  virtual DataPtr allocate(size_t nbytes) = 0;
  // Memory for zeros(): zero already (a fresh mapping; zero_already true) or a reused block
  // the caller must clear (false); null when this allocator has no cheaper way than a fill.
  virtual DataPtr allocate_zeroed(size_t nbytes, bool& zero_already) {
    zero_already = false;
    return DataPtr();
  }
};

// The plain CPU heap: 64-byte aligned, so that vector loads never straddle a cache line.
constexpr size_t kCpuAlignment = 64;
Allocator* cpu_allocator();
// The heap's cache of freed large blocks (Note [Host block cache] in core/cpu_allocator.cpp):
// unmaps every cached block and returns their bytes; the bytes cached now; the most it keeps.
size_t release_cached_host_blocks();
size_t cached_host_bytes();
size_t host_cache_cap();

// The allocator for a device: the CPU heap (or what replaces it, below), or the CUDA backend
// for that device.
Allocator* allocator_for(Device device);

// Note [Pinned CPU tensors]
// genesis.cpu.enable_pinned_memory(True) makes new CPU tensors come from the pinned host pool,
// so that their copies to a GPU can run asynchronously. Core knows no CUDA: the CUDA layer
// installs its allocator here, and allocator_for(kCPU) hands it out while it is set (one relaxed
// load). zeros() asks it for zeroed memory, which the pinned one has none of, and fills instead;
// code that needs the heap itself asks cpu_allocator(). Null restores the heap.
void set_cpu_tensor_allocator(Allocator* allocator);
Allocator* cpu_tensor_allocator();  // the one allocator_for(kCPU) returns

}  // namespace genesis

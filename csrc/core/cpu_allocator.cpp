#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/allocator.h"
#include "core/errors.h"
#include "core/memory_events.h"

namespace genesis {

namespace {

// Note [Large host allocations]
// Buffers from 1 MiB up are mapped directly, 2 MiB aligned, and advised to use transparent huge
// pages: touching a fresh 1 GiB tensor then takes 512 page faults instead of 262144. Mapped
// memory also arrives zeroed, which zeros() uses instead of writing every byte. The length is
// rounded to small pages only: the kernel backs the whole 2 MiB ranges with huge pages and the
// tail with small ones, so a 1 MiB tensor holds 1 MiB, not a 2 MiB huge page.
constexpr size_t kMapThreshold = 1 << 20;
constexpr size_t kHugePage = 2 << 20;

constexpr MemoryEventSource kCpuSource{MemoryPoolKind::Cpu, -1};

// Both deleters find the size they set aside in their context, for the profiler's free event.
void free_heap(void* ptr, void* context) {
  report_memory_event(MemoryEventKind::Free, kCpuSource, 0, ptr, reinterpret_cast<size_t>(context),
                      0);
  std::free(ptr);
}

}  // namespace

// Note [Host block cache]
// A fresh mapping is slow to touch: every page faults and the kernel zeros it, and on a virtual
// machine whose host takes freed memory back, touching it can also wait for the host. On the
// 2-core VM, x + 1.0 of a 64 MiB float32 tensor took 5-7 ms against 2 ms for x.add_(1.0), and
// in bursts of half a second 70-100 ms, most often after torch had been imported and used (its
// memory churn); the CPU sweep's cumsum(dim=1) row was bimodal from it (9 ms or 70-80 ms).
// So freed mapped blocks are kept, by mapped length, and handed out again to allocations of the
// same length (tensors of one shape and dtype always match; lengths stay rounded to small pages
// only, Note [Large host allocations]).
// The cache holds at most host_cache_cap() bytes, 2 GiB or an eighth of the machine's memory if
// that is less (the oldest blocks are unmapped first, a block larger than the cap is unmapped at
// once, and a failed mapping empties the cache and tries again); genesis.empty_cache() unmaps
// them all. Zeroed allocations (zeros()) take a cached block too, which zeros() clears with its
// fill on every thread (the allocator says so: ops::full), and a fresh,
// already-zero mapping only when none fits: clearing a block that is mapped in is one write
// pass, touching a fresh mapping a fault per huge page, each zeroed by the kernel and, on the
// VM, waiting for the host (an Embedding(50304, 256) backward, zeros and an index_add_ of
// 8192 rows: 67 ms against 3 ms with a cleared block; torch's 4.8 ms). After fork()
// the child keeps the parent's cached blocks (private copies, as all its memory); atfork
// handlers hold the lock across fork() so that a fork during another thread's free cannot
// leave it held. Unlike the CUDA pool (Note [Caching pool]), there are no streams to wait for
// and blocks are never split.

size_t host_cache_cap() {
  static const size_t cap = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const size_t most = size_t{2} << 30;
    if (pages <= 0 || page <= 0) return most;
    return std::min(most, static_cast<size_t>(pages) * static_cast<size_t>(page) / 8);
  }();
  return cap;
}

namespace {

class HostBlockCache {
 public:
  HostBlockCache() {
    // Held across fork() by the forking thread, then released on both sides.
    pthread_atfork([] { cache().mutex_.lock(); }, [] { cache().mutex_.unlock(); },
                   [] { cache().mutex_.unlock(); });
  }

  static HostBlockCache& cache() {
    static HostBlockCache* instance = new HostBlockCache();  // never destroyed: frees at exit
    return *instance;
  }

  // A cached block of exactly `length` bytes, or null.
  void* take(size_t length) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_length_.find(length);
    if (it == by_length_.end() || it->second.empty()) return nullptr;
    auto entry = it->second.back();  // the most recently freed: likeliest still in the caches
    it->second.pop_back();
    void* ptr = entry->ptr;
    order_.erase(entry);
    cached_ -= length;
    return ptr;
  }

  // Keeps a freed block (or unmaps it, and the oldest others, to stay within the cap).
  void put(void* ptr, size_t length) {
    std::vector<Block> unmap;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (length > host_cache_cap()) {
        unmap.push_back({ptr, length});
      } else {
        while (cached_ + length > host_cache_cap()) unmap.push_back(pop_oldest());
        order_.push_back({ptr, length});
        by_length_[length].push_back(std::prev(order_.end()));
        cached_ += length;
      }
    }
    for (const Block& b : unmap) munmap(b.ptr, b.length);  // outside the lock: it can be slow
  }

  size_t release_all() {
    std::vector<Block> unmap;
    size_t released = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      released = cached_;
      while (!order_.empty()) unmap.push_back(pop_oldest());
    }
    for (const Block& b : unmap) munmap(b.ptr, b.length);
    return released;
  }

  size_t cached_bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }

 private:
  struct Block {
    void* ptr;
    size_t length;
  };

  Block pop_oldest() {  // the lock held, order_ not empty
    Block b = order_.front();
    auto& same = by_length_[b.length];
    same.erase(std::find(same.begin(), same.end(), order_.begin()));
    order_.pop_front();
    cached_ -= b.length;
    return b;
  }

  std::mutex mutex_;
  std::list<Block> order_;  // oldest first
  std::unordered_map<size_t, std::vector<std::list<Block>::iterator>> by_length_;
  size_t cached_ = 0;
};

void free_mapped(void* ptr, void* context) {
  size_t nbytes = reinterpret_cast<size_t>(context);
  report_memory_event(MemoryEventKind::Free, kCpuSource, 0, ptr, nbytes, 0);
  HostBlockCache::cache().put(ptr, nbytes);
}

[[noreturn]] void cpu_oom(size_t nbytes) {
  report_memory_event(MemoryEventKind::Oom, kCpuSource, 0, nullptr, nbytes, nbytes);
  GENESIS_FAIL(ErrorKind::OutOfMemory, "empty", "CPU out of memory: tried to allocate ", nbytes,
               " bytes");
}

size_t small_page() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

void* map_aligned(size_t nbytes) {
  size_t span = nbytes + kHugePage;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto base = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (base + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > base) munmap(raw, aligned - base);
  size_t tail = (base + span) - (aligned + nbytes);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + nbytes), tail);
#ifdef MADV_HUGEPAGE
  madvise(reinterpret_cast<void*>(aligned), nbytes, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    bool zero_already = false;
    return allocate_impl(nbytes, false, zero_already);
  }
  DataPtr allocate_zeroed(size_t nbytes, bool& zero_already) override {
    return allocate_impl(nbytes, true, zero_already);
  }

 private:
  // zeroed: for zeros(); zero_already then says whether the memory reads as zeros (a fresh
  // mapping) or is a cached block the caller clears (on all its threads: one thread's memset
  // of 51 MB took 1.47 ms, a fill on two 0.81; Note [Host block cache]). Small heap blocks
  // are cleared here.
  DataPtr allocate_impl(size_t nbytes, bool zeroed, bool& zero_already) {
    zero_already = true;
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, kCPU);
    if (nbytes >= kMapThreshold) {
      size_t rounded = (nbytes + small_page() - 1) / small_page() * small_page();
      void* ptr = HostBlockCache::cache().take(rounded);
      if (ptr != nullptr) zero_already = false;
      if (ptr == nullptr) ptr = map_aligned(rounded);
      if (ptr == nullptr && HostBlockCache::cache().release_all() > 0) ptr = map_aligned(rounded);
      if (ptr == nullptr) cpu_oom(nbytes);
      report_memory_event(MemoryEventKind::Alloc, kCpuSource, 0, ptr, rounded, nbytes);
      return DataPtr(ptr, reinterpret_cast<void*>(rounded), &free_mapped, kCPU);
    }
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    void* ptr = std::aligned_alloc(kCpuAlignment, rounded);
    if (ptr == nullptr) cpu_oom(nbytes);
    if (zeroed) std::memset(ptr, 0, rounded);
    report_memory_event(MemoryEventKind::Alloc, kCpuSource, 0, ptr, rounded, nbytes);
    return DataPtr(ptr, reinterpret_cast<void*>(rounded), &free_heap, kCPU);
  }
};

}  // namespace

size_t release_cached_host_blocks() { return HostBlockCache::cache().release_all(); }

size_t cached_host_bytes() { return HostBlockCache::cache().cached_bytes(); }

Allocator* cpu_allocator() {
  static CpuAllocator instance;
  return &instance;
}

}  // namespace genesis

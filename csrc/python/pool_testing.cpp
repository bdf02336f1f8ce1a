// genesis._C._testing.HostPool: the caching pool over the host backend, for the pool's tests.
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "core/errors.h"
#include "cuda/memory.h"
#include "cuda/runtime.h"
#include "memory/caching_pool.h"
#include "memory/host_backend.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

using memory::Block;
using memory::CachingPool;
using memory::HostBackend;

// Handles are block addresses; the map keeps the Block* for them and catches double frees.
class HostPool {
 public:
  explicit HostPool(size_t capacity)
      : backend_(std::make_unique<HostBackend>(capacity)),
        pool_(std::make_unique<CachingPool>(backend_.get())) {}

  uintptr_t allocate(size_t nbytes, memory::StreamId stream) {
    GENESIS_CHECK_VALUE(nbytes > 0, "HostPool.allocate", "size must be positive");
    Block* b = pool_->allocate(nbytes, stream);
    auto handle = reinterpret_cast<uintptr_t>(b->ptr);
    live_[handle] = b;
    return handle;
  }
  void free(uintptr_t handle) { pool_->free(take(handle)); }
  void record_stream(uintptr_t handle, memory::StreamId stream) {
    pool_->record_stream(find(handle), stream);
  }
  // Writes a byte pattern over the whole block, so overlapping blocks would corrupt each other.
  void write(uintptr_t handle, int value) {
    Block* b = find(handle);
    std::memset(b->ptr, value, b->size);
  }
  bool check(uintptr_t handle, int value) {
    Block* b = find(handle);
    for (size_t i = 0; i < b->size; ++i)
      if (static_cast<unsigned char>(b->ptr[i]) != static_cast<unsigned char>(value)) return false;
    return true;
  }
  size_t block_size(uintptr_t handle) { return find(handle)->size; }

  CachingPool& pool() { return *pool_; }
  HostBackend& backend() { return *backend_; }

 private:
  Block* find(uintptr_t handle) {
    auto it = live_.find(handle);
    GENESIS_CHECK_VALUE(it != live_.end(), "HostPool", "unknown or freed handle ", handle);
    return it->second;
  }
  Block* take(uintptr_t handle) {
    Block* b = find(handle);
    live_.erase(handle);
    return b;
  }
  std::unique_ptr<HostBackend> backend_;
  std::unique_ptr<CachingPool> pool_;
  std::unordered_map<uintptr_t, Block*> live_;
};

// Several threads hammer one pool; each block is filled with its thread's byte and checked
// before it is freed, so two threads ever sharing memory shows up as corruption.
// The bytes a block is marked and checked at: its first and last 4 KiB and every 256th byte
// between. Two blocks that overlap share marked bytes (an overlap of fewer than 256 bytes lies
// within an edge), so a pool handing out overlapping blocks is caught, without writing whole
// megabyte blocks thousands of times (minutes under AddressSanitizer).
template <typename Fn>
void for_marked_bytes(size_t size, Fn fn) {
  constexpr size_t kEdge = 4096, kStride = 256;
  for (size_t k = 0; k < size; k += (k < kEdge || k + kEdge >= size) ? 1 : kStride) fn(k);
}

std::tuple<int64_t, int64_t, int64_t> pool_thread_stress(int threads, int iterations) {
  HostBackend backend(size_t{1} << 30);
  CachingPool pool(&backend);
  std::atomic<int64_t> corrupted{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::vector<Block*> held;
      uint32_t seed = 12345u + static_cast<uint32_t>(t);
      for (int i = 0; i < iterations; ++i) {
        seed = seed * 1664525u + 1013904223u;
        size_t size = (seed >> 8) % 3 == 0 ? (seed % (4 << 20)) + 1 : (seed % 8192) + 1;
        Block* b = pool.allocate(size, static_cast<memory::StreamId>(t % 2));
        for_marked_bytes(size, [&](size_t k) { b->ptr[k] = static_cast<char>(t + 1); });
        held.push_back(b);
        if (held.size() > 8 || (seed & 1)) {
          Block* victim = held.front();
          held.erase(held.begin());
          bool intact = true;
          for_marked_bytes(victim->requested, [&](size_t k) {
            intact = intact && victim->ptr[k] == static_cast<char>(t + 1);
          });
          if (!intact) ++corrupted;
          pool.free(victim);
        }
      }
      for (Block* b : held) pool.free(b);
    });
  }
  for (auto& w : workers) w.join();
  memory::PoolStats s = pool.stats();
  return {corrupted.load(), s.allocated_bytes.current, s.reserved_bytes.current};
}

}  // namespace

py::list snapshot_list(const std::vector<memory::SegmentSnapshot>& segments) {
  py::list out;
  for (const auto& s : segments) {
    py::list blocks;
    for (const auto& b : s.blocks) {
      py::dict bd;
      bd["address"] = b.address;
      bd["size"] = b.size;
      bd["requested_size"] = b.requested;
      bd["state"] = b.state;
      blocks.append(bd);
    }
    py::dict sd;
    sd["address"] = s.address;
    sd["total_size"] = s.total_size;
    sd["size"] = s.total_size;  // the memory guide's examples read entry['size']
    sd["stream"] = s.stream;
    sd["segment_type"] = s.small ? "small" : "large";
    // torch's (owner, id) pair: (0, 0) is the ordinary pool (Note [Graph private pools])
    sd["segment_pool_id"] = py::make_tuple(0, s.pool_id);
    sd["allocated_size"] = [&] {
      size_t n = 0;
      for (const auto& b : s.blocks)
        if (std::string(b.state) == "active_allocated") n += b.size;
      return n;
    }();
    sd["blocks"] = blocks;
    out.append(sd);
  }
  return out;
}

// Median-free mean cost of one cached allocate+free pair, in nanoseconds, measured in C++ so
// that no Python overhead is counted (the goal: well under a microsecond per pair).
double time_cached_pairs(memory::CachingPool& pool, size_t nbytes, int64_t pairs) {
  pool.free(pool.allocate(nbytes, 0));  // warm: the block is cached from here on
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < pairs; ++i) pool.free(pool.allocate(nbytes, 0));
  auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start);
  return ns.count() / static_cast<double>(pairs);
}

void init_pool_testing(py::module_& t) {
  t.def(
      "time_host_pool_pairs",
      [](size_t nbytes, int64_t pairs) {
        HostBackend backend(size_t{1} << 32);
        CachingPool pool(&backend);
        return time_cached_pairs(pool, nbytes, pairs);
      },
      py::arg("nbytes") = 4096, py::arg("pairs") = 1000000,
      py::call_guard<py::gil_scoped_release>());
  t.def(
      "time_device_pool_pairs",
      [](int device, size_t nbytes, int64_t pairs) {
        int index = cuda::resolve(Device{DeviceType::CUDA, device}).index;
        cuda::allocator(index);
        return time_cached_pairs(*cuda::device_pool(index), nbytes, pairs);
      },
      py::arg("device") = -1, py::arg("nbytes") = 4096, py::arg("pairs") = 1000000,
      py::call_guard<py::gil_scoped_release>());
  py::class_<HostPool>(t, "HostPool")
      .def(py::init<size_t>(), py::arg("capacity"))
      .def("allocate", &HostPool::allocate, py::arg("nbytes"), py::arg("stream") = 0)
      .def("free", &HostPool::free)
      .def("record_stream", &HostPool::record_stream)
      .def("write", &HostPool::write)
      .def("check", &HostPool::check)
      .def("block_size", &HostPool::block_size)
      .def("empty_cache",
           [](HostPool& p) {
             memory::ReleaseReport r = p.pool().empty_cache();
             return py::make_tuple(r.bytes, r.segments);
           })
      .def("process_pending_frees", [](HostPool& p) { return p.pool().process_pending_frees(); })
      .def(
          "set_max_cached_bytes",
          [](HostPool& p, int64_t n) {
            p.pool().set_max_cached_bytes(n < 0 ? memory::kNoCacheCap : static_cast<size_t>(n));
          },
          py::arg("nbytes"))
      .def("max_cached_bytes",
           [](HostPool& p) -> int64_t {
             size_t cap = p.pool().max_cached_bytes();
             return cap == memory::kNoCacheCap ? -1 : static_cast<int64_t>(cap);
           })
      .def("set_memory_fraction", [](HostPool& p, double f) { p.pool().set_memory_fraction(f); })
      .def("complete_stream",
           [](HostPool& p, memory::StreamId s) { p.backend().complete_stream(s); })
      .def("backend_used_bytes", [](HostPool& p) { return p.backend().used_bytes(); })
      .def("live_events", [](HostPool& p) { return p.backend().live_events(); })
      .def("stats", [](HostPool& p) { return p.pool().stats().flatten(); })
      .def("retain_pool", [](HostPool& p, memory::PoolId id) { p.pool().retain_pool(id); })
      .def("release_pool", [](HostPool& p, memory::PoolId id) { p.pool().release_pool(id); })
      .def("begin_allocate_to_pool",
           [](HostPool& p, memory::PoolId id, memory::StreamId s) {
             p.pool().begin_allocate_to_pool(id, s);
           })
      .def("end_allocate_to_pool",
           [](HostPool& p, memory::PoolId id) { p.pool().end_allocate_to_pool(id); })
      .def("pool_use_count",
           [](HostPool& p, memory::PoolId id) { return p.pool().pool_use_count(id); })
      .def("private_pool_bytes",
           [](HostPool& p, memory::PoolId id) { return p.pool().private_pool_bytes(id); })
      .def("reset_peak_stats", [](HostPool& p) { p.pool().reset_peak_stats(); })
      .def("snapshot", [](HostPool& p) { return snapshot_list(p.pool().snapshot()); });
  t.def("round_size", &CachingPool::round_size);
  t.def("pool_thread_stress", &pool_thread_stress, py::arg("threads"), py::arg("iterations"),
        py::call_guard<py::gil_scoped_release>(),
        "Threads allocate, write, check and free blocks of one pool at once; returns the "
        "number of corrupted blocks seen and the pool's final allocated and reserved bytes.");
  t.def("segment_size", &CachingPool::segment_size);
}

}  // namespace genesis::python

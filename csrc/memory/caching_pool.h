#pragma once
// Note [Caching pool]
// One pool algorithm serves CUDA device memory, pinned host memory and the tests' host backend.
//  - Requests round up to 512 bytes. Up to 1 MiB they come from 2 MiB segments (the small pool);
//    larger ones from 20 MiB segments while under 10 MiB, above that from a segment of their own
//    rounded up to 2 MiB (the large pool).
//  - Free blocks sit in a set ordered by (stream, size, address): a lower_bound finds the best
//    fit on the caller's stream in O(log n). A block is split when the rest is useful (at least
//    512 bytes in the small pool, more than 1 MiB in the large one) and merged with free
//    neighbours when it is freed, so a segment whose blocks are all free is one block again.
//  - Blocks are cached per stream. A block used on another stream (record_stream) is not reused
//    when freed: an event is recorded on each such stream, and the block returns to the pool once
//    every event has completed. Nothing waits for the device.
//  - When the backend cannot grow, the pool returns its cached whole segments, retries once, and
//    only then reports out of memory; the pool stays consistent, so later requests work.
//  - Every allocation, free, segment taken or given back, out-of-memory and empty_cache is
//    reported to the memory profiler (Note [Memory events when profiling is off]) as `source`
//    (which device or pinned memory this pool serves). A free is reported when the caller frees
//    the block, which is also when allocated_bytes drops, even if the block then waits for other
//    streams' events before it can be reused; so the live allocations rebuilt from the events
//    always equal the pool's allocated counters.
//
// Note [Cache cap]
// set_max_cached_bytes caps the bytes the pool keeps free: reserved minus active, the free
// blocks (the parked one included) that only this pool can use. When a free, or a cross-stream
// free completing, takes the cache over the cap, whole free segments go back to the backend,
// largest first (fewest driver calls to get under the cap), until it is under again. Only whole
// segments can go: the free pieces of a segment that still holds a live block stay, since live
// blocks never move; so the cache can stay over the cap by such pieces, and the pool tries
// again at the next free. The check costs one comparison while no cap is set, and the pool
// counts its whole free segments so that an over-cap pool with none of them returns at once.
// Each allocation served from the cache (a cached block, split or not) counts in
// num_cache_hits; one that maps a new segment does not.
//
// Note [Graph private pools]
// A CUDA graph replays the addresses it was captured with, so the memory its kernels touch must
// not be handed to anyone else while the graph can still be replayed (Note [CUDA graphs] in
// cuda/graph.h). The pool therefore tags every segment, and every block in it, with a pool id:
// 0 is the ordinary pool, any other id a private pool. begin_allocate_to_pool(id, stream) routes
// the allocations made on `stream` into private pool `id` (new segments are tagged with it) until
// end_allocate_to_pool(id); the free sets are ordered by (pool id, stream, size, address), so a
// best-fit search, and the parked block, only ever hand out blocks of the caller's own pool.
// Blocks freed inside a private pool, during the capture or after it, stay in that pool: only a
// later capture into the same id (pool sharing between graphs) reuses them. Private pools are
// counted by retain_pool/release_pool (one per graph that captured into it). When the count
// drops to 0 the pool is dead: a replay launched before the reset may still be running in its
// memory, so that memory is never handed out again but only returned to the backend (cudaFree
// waits for the device): its wholly free segments at once, each other one when its last block
// is freed (or at the next empty_cache, if that happens during a capture). Every private block
// is an ordinary block for the statistics: allocated, reserved and segment counts include
// them, and snapshots name each segment's pool id.
// While a capture is underway (routes are active, or the backend says one is underway in the
// process) the pool queries no events, records none for cross-stream frees (they wait in a
// list until the capture ends), and returns no memory to the backend: cudaEventQuery and
// cudaFree are illegal during a capture and would invalidate it.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/memory_events.h"
#include "memory/raw_backend.h"
#include "memory/stats.h"

namespace genesis::memory {

class CachingPool;

using PoolId = uint64_t;  // Note [Graph private pools]: 0 is the ordinary pool
constexpr PoolId kDefaultPoolId = 0;

struct Block {
  CachingPool* pool = nullptr;
  PoolId pool_id = kDefaultPoolId;
  StreamId stream = 0;
  size_t size = 0;       // bytes this block spans
  size_t requested = 0;  // bytes the caller asked for (while allocated)
  char* ptr = nullptr;
  bool allocated = false;
  bool small = false;     // belongs to the small pool
  Block* prev = nullptr;  // neighbours within the segment
  Block* next = nullptr;
  std::vector<StreamId> stream_uses;  // other streams that used it (record_stream)
  int pending_events = 0;             // events to complete before it can be reused
};

struct BlockSnapshot {
  uintptr_t address;
  size_t size;
  size_t requested;
  const char* state;  // "active_allocated", "active_pending_free" or "inactive"
};

struct SegmentSnapshot {
  uintptr_t address;
  size_t total_size;
  StreamId stream;
  bool small;
  PoolId pool_id;
  std::vector<BlockSnapshot> blocks;
};

constexpr size_t kRoundBytes = 512;
constexpr size_t kSmallRequest = 1 << 20;   // requests up to 1 MiB use the small pool
constexpr size_t kSmallSegment = 2 << 20;   // ... carved from 2 MiB segments
constexpr size_t kLargeSegment = 20 << 20;  // requests under 10 MiB share 20 MiB segments
constexpr size_t kLargeShareLimit = 10 << 20;
constexpr size_t kLargeRounding = 2 << 20;  // bigger ones get their own, rounded to 2 MiB
constexpr size_t kNoCacheCap = SIZE_MAX;    // set_max_cached_bytes: keep every free segment

// What a release of cached memory gave back to the backend.
struct ReleaseReport {
  size_t bytes = 0;
  size_t segments = 0;
};

class CachingPool {
 public:
  explicit CachingPool(RawBackend* backend, MemoryEventSource source = {})
      : backend_(backend), source_(source) {}
  ~CachingPool();  // returns every segment; blocks still allocated are abandoned
  CachingPool(const CachingPool&) = delete;
  CachingPool& operator=(const CachingPool&) = delete;

  // A block of at least `nbytes` (> 0) for use on `stream`; raises genesis OutOfMemory.
  Block* allocate(size_t nbytes, StreamId stream);
  void free(Block* block);
  // Marks that `stream` uses the block, so freeing it waits for that stream's work.
  void record_stream(Block* block, StreamId stream);
  // The same for memory the host also reads and writes (pinned blocks): the stream is recorded
  // even when it is the block's own, which no later host access is ordered behind (Note
  // [Pinned blocks wait for their copies] in cuda/pinned_pool.cpp).
  void record_host_use(Block* block, StreamId stream);
  // Returns every whole free segment to the backend, and says how much that was.
  ReleaseReport empty_cache();
  // Returns the blocks whose cross-stream frees have completed to the cache; says how many
  // bytes that was.
  size_t process_pending_frees();
  // Note [Cache cap]: the most bytes kept free (kNoCacheCap: no cap). Applies at once.
  void set_max_cached_bytes(size_t nbytes);
  size_t max_cached_bytes() const;
  // Caps reserved bytes at fraction * backend total (1.0 = no cap beyond the device).
  void set_memory_fraction(double fraction);
  double memory_fraction() const;

  // Note [Graph private pools]. retain_pool makes private pool `id` (> 0) or counts one more
  // user; release_pool counts one fewer and, at 0, gives its memory back to the ordinary pool.
  void retain_pool(PoolId id);
  void release_pool(PoolId id);
  // Allocations on `stream` come from private pool `id` (retained) until end_allocate_to_pool.
  void begin_allocate_to_pool(PoolId id, StreamId stream);
  void end_allocate_to_pool(PoolId id);
  int pool_use_count(PoolId id) const;  // 0 for an id the pool does not know
  // Reserved and allocated bytes of private pool `id` (0, 0 for an unknown id).
  std::pair<size_t, size_t> private_pool_bytes(PoolId id) const;

  PoolStats stats() const;
  void reset_peak_stats();
  void reset_accumulated_stats();
  std::vector<SegmentSnapshot> snapshot() const;
  RawBackend* backend() const { return backend_; }

  static size_t round_size(size_t nbytes);
  static size_t segment_size(size_t rounded);

 private:
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using FreeSet = std::set<Block*, BlockLess>;
  struct PendingFree {
    EventId event;
    Block* block;
  };

  FreeSet& free_set(bool small) { return small ? small_free_ : large_free_; }
  // Every alloc/free pair of a small tensor splits a free block and merges it back: the free
  // sets' nodes and the Block structs are reused instead of going through malloc each time.
  void insert_free(Block* block, FreeSet::node_type node = {});
  FreeSet::node_type remove_free(Block* block);
  Block* new_block();
  void retire_block(Block* block);
  Block* find_free(size_t rounded, PoolId pool_id, StreamId stream, bool small);
  Block* new_segment(size_t rounded, PoolId pool_id, StreamId stream, bool small, size_t nbytes);
  PoolId route(StreamId stream) const;  // the pool id allocations on `stream` come from
  bool capturing() const { return !routes_.empty() || backend_->capture_underway(); }
  void record_pending_events(Block* block);  // a cross-stream free starts waiting
  void free_block(Block* block);             // back to the pool, merged with free neighbours
  void merge_free(Block* block);             // merged with free neighbours and put in the free set
  void unpark();                             // the parked block, if any, merged back
  Block* hand_out(Block* block, size_t nbytes);  // marks it allocated, counts it
  Block* allocate_locked(size_t nbytes, StreamId stream);
  size_t process_events();  // bytes of blocks that went back to the cache
  ReleaseReport release_cached_segments();
  void release_segment(Block* block);  // a whole free segment, out of its free set already
  int64_t cached_bytes() const {
    return stats_.reserved_bytes.current - stats_.active_bytes.current;
  }
  bool over_cap() const {
    return max_cached_ != kNoCacheCap && cached_bytes() > static_cast<int64_t>(max_cached_);
  }
  void trim_cache();  // Note [Cache cap]
  // A whole free segment that may go back to the backend: of pool 0 or of a dead private pool.
  bool releasable(const Block* block) const;
  bool may_reserve(size_t nbytes) const;
  [[noreturn]] void raise_oom(size_t nbytes, size_t segment);

  RawBackend* backend_;
  MemoryEventSource source_;
  mutable std::mutex mutex_;
  FreeSet small_free_, large_free_;
  std::vector<Block*> spare_blocks_;            // retired Block structs, ready for reuse
  std::unordered_map<char*, Block*> segments_;  // segment base -> first block
  std::deque<PendingFree> pending_;
  PoolStats stats_;
  double fraction_ = 1.0;
  size_t max_cached_ = kNoCacheCap;  // Note [Cache cap]
  size_t whole_free_segments_ = 0;   // free blocks in the free sets that span a segment
  // Note [Parked block]: a small op's result is freed and the next op asks for the same size
  // on the same stream. The last small block freed is parked, counted as free but not yet
  // merged, and handed straight back to such a request: no split, no merge, no free-set
  // search. Any other request, and everything that reports the pool's state, unparks it first,
  // so what callers see (stats, snapshots, best fit) is as if it had been merged at once.
  Block* parked_ = nullptr;
  // Note [Graph private pools]
  struct Route {
    StreamId stream;
    PoolId pool_id;
  };
  std::vector<Route> routes_;                   // streams being captured into private pools
  std::unordered_map<PoolId, int> pool_users_;  // live private pool id -> graphs using it
  std::vector<Block*> deferred_frees_;          // cross-stream frees made during a capture
};

}  // namespace genesis::memory

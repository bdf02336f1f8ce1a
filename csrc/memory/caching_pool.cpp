#include "memory/caching_pool.h"

#include <algorithm>
#include <tuple>

#include "core/errors.h"

namespace genesis::memory {

namespace {
std::string mib(size_t bytes) { return str_cat(static_cast<double>(bytes) / (1 << 20), " MiB"); }
std::string gib(size_t bytes) { return str_cat(static_cast<double>(bytes) / (1ull << 30), " GiB"); }
bool is_split(const Block* b) { return b->prev != nullptr || b->next != nullptr; }
}  // namespace

bool CachingPool::BlockLess::operator()(const Block* a, const Block* b) const {
  return std::tie(a->pool_id, a->stream, a->size, a->ptr) <
         std::tie(b->pool_id, b->stream, b->size, b->ptr);
}

CachingPool::~CachingPool() {
  for (auto& [base, head] : segments_) {
    size_t total = 0;
    for (Block* b = head; b != nullptr;) {
      Block* next = b->next;
      total += b->size;
      delete b;
      b = next;
    }
    backend_->raw_free(base, total);
  }
  for (PendingFree& p : pending_) backend_->release_event(p.event);
  for (Block* b : spare_blocks_) delete b;
}

Block* CachingPool::new_block() {
  if (spare_blocks_.empty()) return new Block;
  Block* b = spare_blocks_.back();
  spare_blocks_.pop_back();
  return b;
}

void CachingPool::retire_block(Block* block) {
  constexpr size_t kMaxSpare = 64;
  if (spare_blocks_.size() >= kMaxSpare) {
    delete block;
    return;
  }
  *block = Block{};
  spare_blocks_.push_back(block);
}

size_t CachingPool::round_size(size_t nbytes) {
  return nbytes < kRoundBytes ? kRoundBytes
                              : (nbytes + kRoundBytes - 1) / kRoundBytes * kRoundBytes;
}

size_t CachingPool::segment_size(size_t rounded) {
  if (rounded <= kSmallRequest) return kSmallSegment;
  if (rounded < kLargeShareLimit) return kLargeSegment;
  return (rounded + kLargeRounding - 1) / kLargeRounding * kLargeRounding;
}

void CachingPool::insert_free(Block* block, FreeSet::node_type node) {
  if (node) {
    node.value() = block;
    free_set(block->small).insert(std::move(node));
  } else {
    free_set(block->small).insert(block);
  }
  if (is_split(block)) {
    stats_.inactive_split_bytes.increase(static_cast<int64_t>(block->size));
    stats_.inactive_split.increase(1);
  } else {
    ++whole_free_segments_;
  }
}

CachingPool::FreeSet::node_type CachingPool::remove_free(Block* block) {
  FreeSet::node_type node = free_set(block->small).extract(block);
  if (is_split(block)) {
    stats_.inactive_split_bytes.decrease(static_cast<int64_t>(block->size));
    stats_.inactive_split.decrease(1);
  } else if (node) {  // a parked block is in no set, and never a whole segment anyway
    --whole_free_segments_;
  }
  return node;
}

Block* CachingPool::find_free(size_t rounded, PoolId pool_id, StreamId stream, bool small) {
  FreeSet& set = free_set(small);
  Block key;
  key.pool_id = pool_id;
  key.stream = stream;
  key.size = rounded;
  auto it = set.lower_bound(&key);
  if (it == set.end() || (*it)->pool_id != pool_id || (*it)->stream != stream) return nullptr;
  return *it;
}

PoolId CachingPool::route(StreamId stream) const {
  for (const Route& r : routes_)
    if (r.stream == stream) return r.pool_id;
  return kDefaultPoolId;
}

bool CachingPool::may_reserve(size_t nbytes) const {
  if (fraction_ >= 1.0) return true;
  double limit = fraction_ * static_cast<double>(backend_->total_bytes());
  return static_cast<double>(stats_.reserved_bytes.current + static_cast<int64_t>(nbytes)) <= limit;
}

Block* CachingPool::new_segment(size_t rounded, PoolId pool_id, StreamId stream, bool small,
                                size_t nbytes) {
  size_t seg = segment_size(rounded);
  void* ptr = may_reserve(seg) ? backend_->raw_alloc(seg) : nullptr;
  if (ptr == nullptr && !capturing()) {  // nothing may be returned during a capture
    // Give back what is cached and try once more before calling it out of memory.
    ++stats_.num_alloc_retries;
    release_cached_segments();
    ptr = may_reserve(seg) ? backend_->raw_alloc(seg) : nullptr;
  }
  if (ptr == nullptr) raise_oom(nbytes, seg);
  report_memory_event(MemoryEventKind::SegmentMap, source_, stream, ptr, seg, seg);
  Block* block = new_block();
  block->pool = this;
  block->pool_id = pool_id;
  block->stream = stream;
  block->size = seg;
  block->ptr = static_cast<char*>(ptr);
  block->small = small;
  segments_[block->ptr] = block;
  stats_.reserved_bytes.increase(static_cast<int64_t>(seg));
  stats_.segment.increase(1);
  return block;
}

void CachingPool::raise_oom(size_t nbytes, size_t segment) {
  ++stats_.num_ooms;
  report_memory_event(MemoryEventKind::Oom, source_, 0, nullptr, segment, nbytes);
  size_t total = backend_->total_bytes(), free_now = backend_->free_bytes();
  std::string cap =
      fraction_ < 1.0 ? str_cat(" (capped by a memory fraction of ", fraction_, ")") : "";
  GENESIS_FAIL(ErrorKind::OutOfMemory, "allocate", backend_->describe(),
               " out of memory: tried to allocate ", mib(nbytes), " (a segment of ", mib(segment),
               "); the device has ", gib(total), " in total, ", gib(free_now),
               " free; genesis holds ", gib(static_cast<size_t>(stats_.allocated_bytes.current)),
               " allocated and ", gib(static_cast<size_t>(stats_.reserved_bytes.current)),
               " reserved", cap);
}

Block* CachingPool::allocate(size_t nbytes, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  process_events();
  Block* block = allocate_locked(nbytes, stream);
  if (over_cap()) trim_cache();  // completed cross-stream frees may have filled the cache
  return block;
}

Block* CachingPool::allocate_locked(size_t nbytes, StreamId stream) {
  size_t rounded = round_size(nbytes);
  bool small = rounded <= kSmallRequest;
  PoolId pool_id = routes_.empty() ? kDefaultPoolId : route(stream);
  Block* block = parked_;
  if (block != nullptr && block->stream == stream && block->size == rounded &&
      block->pool_id == pool_id) {
    parked_ = nullptr;
    if (is_split(block)) {  // counted as free while parked
      stats_.inactive_split_bytes.decrease(static_cast<int64_t>(block->size));
      stats_.inactive_split.decrease(1);
    }
    ++stats_.num_cache_hits;
    return hand_out(block, nbytes);
  }
  unpark();
  block = find_free(rounded, pool_id, stream, small);
  FreeSet::node_type node;
  if (block != nullptr) {
    node = remove_free(block);
    ++stats_.num_cache_hits;
  } else {
    block = new_segment(rounded, pool_id, stream, small, nbytes);
  }
  size_t rest = block->size - rounded;
  bool split = small ? rest >= kRoundBytes : rest > kSmallRequest;
  if (split) {
    Block* remainder = new_block();
    remainder->pool = this;
    remainder->pool_id = block->pool_id;
    remainder->stream = stream;
    remainder->size = rest;
    remainder->ptr = block->ptr + rounded;
    remainder->small = small;
    remainder->prev = block;
    remainder->next = block->next;
    if (block->next) block->next->prev = remainder;
    block->next = remainder;
    block->size = rounded;
    insert_free(remainder, std::move(node));
  }
  return hand_out(block, nbytes);
}

Block* CachingPool::hand_out(Block* block, size_t nbytes) {
  block->allocated = true;
  block->requested = nbytes;
  report_memory_event(MemoryEventKind::Alloc, source_, block->stream, block->ptr, block->size,
                      nbytes);
  int64_t size = static_cast<int64_t>(block->size);
  stats_.allocated_bytes.increase(size);
  stats_.active_bytes.increase(size);
  stats_.requested_bytes.increase(static_cast<int64_t>(nbytes));
  stats_.allocation.increase(1);
  stats_.active.increase(1);
  return block;
}

void CachingPool::free(Block* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  unpark();  // merged while this block still reads as allocated to it
  report_memory_event(MemoryEventKind::Free, source_, block->stream, block->ptr, block->size,
                      block->requested);
  block->allocated = false;
  stats_.allocated_bytes.decrease(static_cast<int64_t>(block->size));
  stats_.requested_bytes.decrease(static_cast<int64_t>(block->requested));
  stats_.allocation.decrease(1);
  block->requested = 0;
  if (!block->stream_uses.empty()) {
    // Still active until the events complete; during a capture the events wait too (Note
    // [Graph private pools]), and the block counts as pending meanwhile.
    block->pending_events = static_cast<int>(block->stream_uses.size());
    if (capturing())
      deferred_frees_.push_back(block);
    else
      record_pending_events(block);
    return;
  }
  if (block->pool_id != kDefaultPoolId && pool_users_.count(block->pool_id) == 0) {
    free_block(block);  // a dead private pool: its memory is never handed out again
    if (releasable(block) && !capturing()) {
      free_set(block->small).erase(block);
      --whole_free_segments_;
      release_segment(block);
    }
    return;
  }
  if (!block->small) {
    free_block(block);
  } else {
    stats_.active_bytes.decrease(static_cast<int64_t>(block->size));
    stats_.active.decrease(1);
    if (is_split(block)) {  // counted as free, as insert_free would
      stats_.inactive_split_bytes.increase(static_cast<int64_t>(block->size));
      stats_.inactive_split.increase(1);
    }
    parked_ = block;
  }
  if (over_cap()) trim_cache();
}

void CachingPool::record_pending_events(Block* block) {
  for (StreamId s : block->stream_uses) pending_.push_back({backend_->record_event(s), block});
  block->stream_uses.clear();
}

void CachingPool::unpark() {
  Block* block = parked_;
  if (block == nullptr) return;
  parked_ = nullptr;
  if (is_split(block)) {  // insert_free counts it again, merged with its neighbours
    stats_.inactive_split_bytes.decrease(static_cast<int64_t>(block->size));
    stats_.inactive_split.decrease(1);
  }
  merge_free(block);
}

void CachingPool::free_block(Block* block) {
  stats_.active_bytes.decrease(static_cast<int64_t>(block->size));
  stats_.active.decrease(1);
  merge_free(block);
}

void CachingPool::merge_free(Block* block) {
  // Merge with free neighbours (not allocated, not waiting on events). A parked neighbour counts
  // as free and stops being parked; as it was never merged, the block past it may be free too,
  // hence the loops.
  auto is_free = [](const Block* n) {
    return n != nullptr && !n->allocated && n->pending_events == 0;
  };
  FreeSet::node_type node;
  auto absorb = [&](Block* n) {
    if (n == parked_) parked_ = nullptr;
    FreeSet::node_type removed = remove_free(n);
    if (!node) node = std::move(removed);
    block->size += n->size;
    retire_block(n);
  };
  while (is_free(block->prev)) {
    Block* n = block->prev;
    block->ptr = n->ptr;
    block->prev = n->prev;
    if (n->prev)
      n->prev->next = block;
    else
      segments_[block->ptr] = block;
    absorb(n);
  }
  while (is_free(block->next)) {
    Block* n = block->next;
    block->next = n->next;
    if (n->next) n->next->prev = block;
    absorb(n);
  }
  insert_free(block, std::move(node));
}

void CachingPool::record_stream(Block* block, StreamId stream) {
  if (stream == block->stream) return;
  record_host_use(block, stream);
}

void CachingPool::record_host_use(Block* block, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) ==
      block->stream_uses.end())
    block->stream_uses.push_back(stream);
}

size_t CachingPool::process_events() {
  if (capturing()) return 0;  // Note [Graph private pools]: no event may be queried now
  for (Block* b : deferred_frees_) record_pending_events(b);
  deferred_frees_.clear();
  size_t freed = 0;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!backend_->query_event(it->event)) {
      ++it;
      continue;
    }
    backend_->release_event(it->event);
    Block* block = it->block;
    it = pending_.erase(it);
    if (--block->pending_events == 0) {
      freed += block->size;
      free_block(block);
    }
  }
  return freed;
}

void CachingPool::release_segment(Block* b) {
  segments_.erase(b->ptr);
  report_memory_event(MemoryEventKind::SegmentUnmap, source_, b->stream, b->ptr, b->size, b->size);
  backend_->raw_free(b->ptr, b->size);
  stats_.reserved_bytes.decrease(static_cast<int64_t>(b->size));
  stats_.segment.decrease(1);
  retire_block(b);
}

ReleaseReport CachingPool::release_cached_segments() {
  ReleaseReport report;
  if (capturing()) return report;  // cudaFree would end the capture
  process_events();
  unpark();
  for (bool small : {true, false}) {
    FreeSet& set = free_set(small);
    for (auto it = set.begin(); it != set.end();) {
      Block* b = *it;
      if (!releasable(b)) {
        ++it;
        continue;
      }
      it = set.erase(it);
      --whole_free_segments_;
      report.bytes += b->size;
      ++report.segments;
      release_segment(b);
    }
  }
  return report;
}

void CachingPool::trim_cache() {
  if (capturing()) return;  // cudaFree would end the capture
  unpark();                 // a parked block merged may complete a whole free segment
  if (!over_cap() || whole_free_segments_ == 0) return;
  std::vector<Block*> whole;
  for (bool small : {true, false})
    for (Block* b : free_set(small))
      if (releasable(b)) whole.push_back(b);
  std::sort(whole.begin(), whole.end(), [](const Block* a, const Block* b) {
    return a->size != b->size ? a->size > b->size : a->ptr < b->ptr;
  });
  for (Block* b : whole) {
    if (!over_cap()) break;
    free_set(b->small).erase(b);
    --whole_free_segments_;
    release_segment(b);
  }
}

ReleaseReport CachingPool::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  GENESIS_CHECK(!capturing(), "empty_cache",
                "cannot return cached memory while a CUDA graph is being captured");
  ReleaseReport report = release_cached_segments();
  report_memory_event(MemoryEventKind::EmptyCache, source_, 0, nullptr, report.bytes, 0);
  return report;
}

size_t CachingPool::process_pending_frees() {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t freed = process_events();
  if (over_cap()) trim_cache();
  return freed;
}

void CachingPool::set_max_cached_bytes(size_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  max_cached_ = nbytes;
  if (over_cap()) trim_cache();
}

size_t CachingPool::max_cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return max_cached_;
}

void CachingPool::set_memory_fraction(double fraction) {
  GENESIS_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "set_per_process_memory_fraction",
                      "fraction must be in [0, 1], got ", fraction);
  std::lock_guard<std::mutex> lock(mutex_);
  fraction_ = fraction;
}

double CachingPool::memory_fraction() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fraction_;
}

void CachingPool::retain_pool(PoolId id) {
  GENESIS_CHECK_VALUE(id != kDefaultPoolId, "graph pool", "pool id 0 is the ordinary pool");
  std::lock_guard<std::mutex> lock(mutex_);
  ++pool_users_[id];
}

void CachingPool::release_pool(PoolId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = pool_users_.find(id);
  GENESIS_CHECK(it != pool_users_.end(), "graph pool", "private pool ", id, " is not in use");
  if (--it->second > 0) return;
  pool_users_.erase(it);  // the pool is dead: its memory only goes back to the backend
  if (capturing()) return;
  unpark();
  std::vector<Block*> whole;
  for (auto& [base, head] : segments_)
    if (head->pool_id == id && !is_split(head) && !head->allocated && head->pending_events == 0)
      whole.push_back(head);
  for (Block* b : whole) {
    free_set(b->small).erase(b);
    --whole_free_segments_;
    release_segment(b);
  }
}

bool CachingPool::releasable(const Block* block) const {
  if (is_split(block) || block->allocated || block->pending_events > 0) return false;
  return block->pool_id == kDefaultPoolId || pool_users_.count(block->pool_id) == 0;
}

void CachingPool::begin_allocate_to_pool(PoolId id, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  GENESIS_CHECK(pool_users_.count(id) != 0, "graph pool", "private pool ", id,
                " must be retained before allocating into it");
  GENESIS_CHECK(route(stream) == kDefaultPoolId, "graph pool", "stream ", stream,
                " already allocates into private pool ", route(stream));
  routes_.push_back({stream, id});
}

void CachingPool::end_allocate_to_pool(PoolId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  routes_.erase(std::remove_if(routes_.begin(), routes_.end(),
                               [id](const Route& r) { return r.pool_id == id; }),
                routes_.end());
}

int CachingPool::pool_use_count(PoolId id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = pool_users_.find(id);
  return it == pool_users_.end() ? 0 : it->second;
}

std::pair<size_t, size_t> CachingPool::private_pool_bytes(PoolId id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t reserved = 0, allocated = 0;
  for (const auto& [base, head] : segments_) {
    if (head->pool_id != id) continue;
    for (const Block* b = head; b != nullptr; b = b->next) {
      reserved += b->size;
      if (b->allocated) allocated += b->size;
    }
  }
  return {reserved, allocated};
}

PoolStats CachingPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const_cast<CachingPool*>(this)->unpark();  // Note [Parked block]: report the merged state
  return stats_;
}

void CachingPool::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_peaks();
}

void CachingPool::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_accumulated();
}

std::vector<SegmentSnapshot> CachingPool::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const_cast<CachingPool*>(this)->unpark();  // Note [Parked block]: report the merged state
  std::vector<SegmentSnapshot> out;
  for (const auto& [base, head] : segments_) {
    SegmentSnapshot seg{
        reinterpret_cast<uintptr_t>(base), 0, head->stream, head->small, head->pool_id, {}};
    for (const Block* b = head; b != nullptr; b = b->next) {
      const char* state = b->allocated            ? "active_allocated"
                          : b->pending_events > 0 ? "active_pending_free"
                                                  : "inactive";
      seg.blocks.push_back({reinterpret_cast<uintptr_t>(b->ptr), b->size, b->requested, state});
      seg.total_size += b->size;
    }
    out.push_back(std::move(seg));
  }
  std::sort(out.begin(), out.end(), [](const SegmentSnapshot& a, const SegmentSnapshot& b) {
    return a.address < b.address;
  });
  return out;
}

}  // namespace genesis::memory

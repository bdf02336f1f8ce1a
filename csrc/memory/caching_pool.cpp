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
  return std::tie(a->stream, a->size, a->ptr) < std::tie(b->stream, b->size, b->ptr);
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

Block* CachingPool::find_free(size_t rounded, StreamId stream, bool small) {
  FreeSet& set = free_set(small);
  Block key;
  key.stream = stream;
  key.size = rounded;
  auto it = set.lower_bound(&key);
  if (it == set.end() || (*it)->stream != stream) return nullptr;
  return *it;
}

bool CachingPool::may_reserve(size_t nbytes) const {
  if (fraction_ >= 1.0) return true;
  double limit = fraction_ * static_cast<double>(backend_->total_bytes());
  return static_cast<double>(stats_.reserved_bytes.current + static_cast<int64_t>(nbytes)) <= limit;
}

Block* CachingPool::new_segment(size_t rounded, StreamId stream, bool small, size_t nbytes) {
  size_t seg = segment_size(rounded);
  void* ptr = may_reserve(seg) ? backend_->raw_alloc(seg) : nullptr;
  if (ptr == nullptr) {
    // Give back what is cached and try once more before calling it out of memory.
    ++stats_.num_alloc_retries;
    release_cached_segments();
    ptr = may_reserve(seg) ? backend_->raw_alloc(seg) : nullptr;
  }
  if (ptr == nullptr) raise_oom(nbytes, seg);
  report_memory_event(MemoryEventKind::SegmentMap, source_, stream, ptr, seg, seg);
  Block* block = new_block();
  block->pool = this;
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
  Block* block = parked_;
  if (block != nullptr && block->stream == stream && block->size == rounded) {
    parked_ = nullptr;
    if (is_split(block)) {  // counted as free while parked
      stats_.inactive_split_bytes.decrease(static_cast<int64_t>(block->size));
      stats_.inactive_split.decrease(1);
    }
    ++stats_.num_cache_hits;
    return hand_out(block, nbytes);
  }
  unpark();
  block = find_free(rounded, stream, small);
  FreeSet::node_type node;
  if (block != nullptr) {
    node = remove_free(block);
    ++stats_.num_cache_hits;
  } else {
    block = new_segment(rounded, stream, small, nbytes);
  }
  size_t rest = block->size - rounded;
  bool split = small ? rest >= kRoundBytes : rest > kSmallRequest;
  if (split) {
    Block* remainder = new_block();
    remainder->pool = this;
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
    for (StreamId s : block->stream_uses) pending_.push_back({backend_->record_event(s), block});
    block->pending_events = static_cast<int>(block->stream_uses.size());
    block->stream_uses.clear();
    return;  // still active until the events complete
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
  std::lock_guard<std::mutex> lock(mutex_);
  if (stream == block->stream) return;
  if (std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) ==
      block->stream_uses.end())
    block->stream_uses.push_back(stream);
}

size_t CachingPool::process_events() {
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
  process_events();
  unpark();
  ReleaseReport report;
  for (bool small : {true, false}) {
    FreeSet& set = free_set(small);
    for (auto it = set.begin(); it != set.end();) {
      Block* b = *it;
      if (is_split(b)) {
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
  unpark();  // a parked block merged may complete a whole free segment
  if (!over_cap() || whole_free_segments_ == 0) return;
  std::vector<Block*> whole;
  for (bool small : {true, false})
    for (Block* b : free_set(small))
      if (!is_split(b)) whole.push_back(b);
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
    SegmentSnapshot seg{reinterpret_cast<uintptr_t>(base), 0, head->stream, head->small, {}};
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

#pragma once
// Pool statistics under PyTorch's names, so tools that read torch.cuda.memory_stats read ours.
#include <cstdint>
#include <map>
#include <string>

namespace genesis::memory {

struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;

  void increase(int64_t n) {
    current += n;
    allocated += n;
    if (current > peak) peak = current;
  }
  void decrease(int64_t n) {
    current -= n;
    freed += n;
  }
  void reset_peak() { peak = current; }
  void reset_accumulated() { allocated = freed = 0; }
};

struct PoolStats {
  Stat allocated_bytes;       // bytes in blocks handed out (rounded sizes)
  Stat reserved_bytes;        // bytes in segments obtained from the backend
  Stat active_bytes;          // allocated bytes plus freed blocks still waiting on stream events
  Stat inactive_split_bytes;  // free bytes in segments that are split (not returnable)
  Stat requested_bytes;       // bytes the callers asked for (before rounding)
  Stat allocation;            // number of blocks handed out
  Stat segment;               // number of segments
  Stat active;                // number of active blocks
  Stat inactive_split;        // number of free blocks in split segments
  int64_t num_alloc_retries = 0;
  int64_t num_ooms = 0;
  int64_t num_cache_hits = 0;  // allocations served without a new segment (Note [Cache cap])

  // "allocated_bytes.all.current" -> value, as torch.cuda.memory_stats() lays it out.
  std::map<std::string, int64_t> flatten() const;
  void reset_peaks();
  void reset_accumulated();
};

}  // namespace genesis::memory

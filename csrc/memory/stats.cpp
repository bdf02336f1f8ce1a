#include "memory/stats.h"

namespace genesis::memory {

namespace {
void put(std::map<std::string, int64_t>& out, const std::string& name, const Stat& s) {
  out[name + ".all.current"] = s.current;
  out[name + ".all.peak"] = s.peak;
  out[name + ".all.allocated"] = s.allocated;
  out[name + ".all.freed"] = s.freed;
}

template <typename F>
void each(PoolStats& s, F f) {
  for (Stat* st : {&s.allocated_bytes, &s.reserved_bytes, &s.active_bytes, &s.inactive_split_bytes,
                   &s.requested_bytes, &s.allocation, &s.segment, &s.active, &s.inactive_split})
    f(*st);
}
}  // namespace

std::map<std::string, int64_t> PoolStats::flatten() const {
  std::map<std::string, int64_t> out;
  put(out, "allocated_bytes", allocated_bytes);
  put(out, "reserved_bytes", reserved_bytes);
  put(out, "active_bytes", active_bytes);
  put(out, "inactive_split_bytes", inactive_split_bytes);
  put(out, "requested_bytes", requested_bytes);
  put(out, "allocation", allocation);
  put(out, "segment", segment);
  put(out, "active", active);
  put(out, "inactive_split", inactive_split);
  out["num_alloc_retries"] = num_alloc_retries;
  out["num_ooms"] = num_ooms;
  out["num_cache_hits"] = num_cache_hits;
  return out;
}

void PoolStats::reset_peaks() {
  each(*this, [](Stat& s) { s.reset_peak(); });
}

void PoolStats::reset_accumulated() {
  each(*this, [](Stat& s) { s.reset_accumulated(); });
  num_alloc_retries = num_ooms = num_cache_hits = 0;
}

}  // namespace genesis::memory

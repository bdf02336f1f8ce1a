#pragma once
// The compiled programs of fused groups, kept in memory and on disk (Note [Kernel cache]).
#include <cstdint>
#include <functional>
#include <string>

namespace genesis::fusion {

// The cubin stored under `key`: from memory, else from the disk cache, else build()'s (then
// kept in both). `key` names everything the cubin depends on.
std::string cached_cubin(const std::string& key, const std::function<std::string()>& build);
// The two halves of cached_cubin: the cubin from memory or disk (false when neither has it), and
// keeping a newly built one in both (background_builds.cpp builds between them).
bool find_cubin(const std::string& key, std::string& cubin);
void keep_built_cubin(const std::string& key, const std::string& cubin);

struct CacheStats {
  int64_t memory_hits = 0, disk_hits = 0, builds = 0, disk_writes = 0, disk_rejected = 0;
};
CacheStats cache_stats();
// Forgets the in-memory copies (the disk cache stays), as a new process would start.
void clear_memory_cache();
// The folder of the disk cache: $GENESIS_CACHE_DIR, else $XDG_CACHE_HOME/genesis, else
// ~/.cache/genesis; then /kernels. Empty when there is none (no home): no disk cache.
std::string cache_folder();

}  // namespace genesis::fusion

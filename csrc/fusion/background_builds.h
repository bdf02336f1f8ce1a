#pragma once
// New fused programs built on worker threads while their groups run op by op (Note [Building
// programs in the background] in background_builds.cpp).
#include <cstdint>
#include <functional>
#include <string>

namespace genesis::fusion {

// Whether programs missing from the cache are built in the background (the default) or on the
// calling thread before the group runs (GENESIS_COMPILE_SYNC=1, or set_background_builds(false)
// as the tests do: every group then runs its generated kernel).
void set_background_builds(bool on);
bool background_builds();

// True with the cubin when key's program is in the kernel cache (memory or disk). Otherwise
// starts build() on a worker, once per key (a build that failed is not tried again), and returns
// false: the caller runs its group op by op meanwhile. The build's cubin goes into the cache.
bool cubin_or_start_build(const std::string& key, std::function<std::string()> build,
                          std::string& cubin);

// Waits until no build is queued or running (before a CUDA graph captures a compiled step).
void wait_for_builds();

struct BuildStats {
  int64_t started = 0, finished = 0, failed = 0, pending = 0;
};
BuildStats build_stats();

}  // namespace genesis::fusion

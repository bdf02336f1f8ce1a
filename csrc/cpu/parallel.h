#pragma once
// parallel_for: splits [0, n) into chunks of at least `grain` items over the CPU's threads.
// `grain` is the smallest piece worth a thread of its own (about kDefaultGrain simple element
// operations): work of less than one grain runs serially, on the calling thread, without waking
// the pool (Note [Serial small work]), and work of at least one grain lets the caller's lock go
// while it runs (Note [Releasing the caller's lock] in core/caller_lock.h).
#include <algorithm>
#include <cstdint>

#include "core/caller_lock.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace genesis::cpu {

constexpr int64_t kDefaultGrain = 32768;

// The threads parallel_for may use (1 without OpenMP): for callers that cut work into one piece
// per thread.
inline int64_t max_threads() {
#ifdef _OPENMP
  return std::max(1, omp_get_max_threads());
#else
  return 1;
#endif
}

// Note [Fork safety]: OpenMP's thread pool does not survive fork(): a child's first parallel
// region waits forever for threads that were not copied. A handler registered with
// pthread_atfork marks the child, and parallel_for then runs serially there, so a
// multiprocessing worker under the "fork" start method computes (on one thread) instead of
// hanging. install_fork_handlers() is called once from the module's initialisation.
void install_fork_handlers();
bool in_forked_child();

// Note [Serial small work]
// Opening an OpenMP region costs microseconds (waking the pool's threads, the barrier at its
// end), and far more when the threads have gone to sleep: rand(64, 64).sum(0) took 1.7 ms in a
// two-thread region against 2 us on one thread. So each caller states its grain in units of
// work, not of loop items: an item that stands for many element operations (a column block of a
// reduction, a gemm tile) gets a grain of kDefaultGrain / (operations per item), and work below
// one grain never opens a region. benchmarks/compute.py's "small" rows watch this.
template <typename Body>
void parallel_for(int64_t n, int64_t grain, const Body& body) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (n < grain) {  // less than one grain: serial, keeping the caller's lock
    body(int64_t{0}, n);
    return;
  }
  UnlockedRegion unlocked;
#ifdef _OPENMP
  int64_t max_threads = omp_get_max_threads();
  // n / grain rounded up without n + grain - 1, which overflows for a grain near INT64_MAX.
  int64_t chunks = std::min<int64_t>(max_threads, n / grain + (n % grain != 0));
  if (chunks > 1 && !omp_in_parallel() && !in_forked_child()) {
#pragma omp parallel num_threads(static_cast<int>(chunks))
    {
      int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      int64_t per = (n + nt - 1) / nt;
      int64_t begin = t * per, end = std::min(n, begin + per);
      if (begin < end) body(begin, end);
    }
    return;
  }
#endif
  body(int64_t{0}, n);
}

}  // namespace genesis::cpu

#pragma once
// parallel_for: splits [0, n) into chunks of at least `grain` items over the CPU's threads.
#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace genesis::cpu {

constexpr int64_t kDefaultGrain = 32768;

// Note [Fork safety]: OpenMP's thread pool does not survive fork(): a child's first parallel
// region waits forever for threads that were not copied. A handler registered with
// pthread_atfork marks the child, and parallel_for then runs serially there, so a
// multiprocessing worker under the "fork" start method computes (on one thread) instead of
// hanging. install_fork_handlers() is called once from the module's initialisation.
void install_fork_handlers();
bool in_forked_child();

template <typename Body>
void parallel_for(int64_t n, int64_t grain, const Body& body) {
  if (n <= 0) return;
#ifdef _OPENMP
  int64_t max_threads = omp_get_max_threads();
  grain = std::max<int64_t>(grain, 1);
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

#pragma once
// parallel_for: splits [0, n) into chunks of at least `grain` items over the CPU's threads.
#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace genesis::cpu {

constexpr int64_t kDefaultGrain = 32768;

template <typename Body>
void parallel_for(int64_t n, int64_t grain, const Body& body) {
  if (n <= 0) return;
#ifdef _OPENMP
  int64_t max_threads = omp_get_max_threads();
  int64_t chunks = std::min<int64_t>(max_threads, (n + grain - 1) / grain);
  if (chunks > 1 && !omp_in_parallel()) {
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

// Note [Building programs in the background]: NVRTC takes 50 to 170 ms a program, and the first
// step of a compiled GPT-2 meets about 34 new ones: built one after another on the calling thread
// they would stall that step for seconds. So a group whose program is in neither cache starts its
// build on a worker thread and runs op by op with the eager loops (the same values: the generated
// kernels compute as eager does, Note [Fused groups on CUDA]); a later run of the same structure
// finds the cubin cached and launches it. Builds run on up to 8 workers at once (half the cores),
// so the first step's programs build in parallel with each other and with the step itself.
//
// Each key is built once: a build that fails (NVRTC's error) leaves its key marked, and its
// groups keep running op by op. At exit the queue is dropped and the running builds are waited
// for (a worker must not be inside NVRTC while the process tears it down). A forked child has
// none of its parent's workers: it starts with empty state and makes its own.
#include "fusion/background_builds.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_set>
#include <utility>

#include "core/errors.h"
#include "fusion/kernel_cache.h"

namespace genesis::fusion {

namespace {

struct Job {
  std::string key;
  std::function<std::string()> build;
};

// Leaked on purpose: workers may outlive static destructors until the exit handler has run.
struct Builds {
  std::mutex mutex;
  std::condition_variable work, idle;
  std::deque<Job> queue;
  std::unordered_set<std::string> pending, failed;  // pending: queued or running
  int workers = 0, running = 0;
  bool exiting = false;
  BuildStats stats;
};

Builds& builds() {
  static Builds* b = [] {
    auto* made = new Builds;
    // Fork while a worker holds the lock would leave the child's copy locked: take it around
    // fork, and let the child forget the parent's workers and jobs.
    pthread_atfork([] { builds().mutex.lock(); }, [] { builds().mutex.unlock(); },
                   [] {
                     Builds& c = builds();
                     c.mutex.unlock();
                     c.queue.clear();
                     c.pending.clear();
                     c.workers = c.running = 0;
                   });
    std::atexit([] {
      Builds& c = builds();
      std::unique_lock<std::mutex> lock(c.mutex);
      c.exiting = true;
      for (const Job& job : c.queue) c.pending.erase(job.key);
      c.queue.clear();
      c.work.notify_all();
      c.idle.wait(lock, [&] { return c.running == 0; });
    });
    return made;
  }();
  return *b;
}

std::atomic<int> g_background{-1};  // -1: not yet read from the environment

int max_workers() {
  unsigned cores = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(cores / 2, 1, 8));
}

void work(Builds& b) {
  std::unique_lock<std::mutex> lock(b.mutex);
  for (;;) {
    b.work.wait(lock, [&] { return b.exiting || !b.queue.empty(); });
    if (b.exiting) break;
    Job job = std::move(b.queue.front());
    b.queue.pop_front();
    ++b.running;
    lock.unlock();
    bool ok = true;
    try {
      keep_built_cubin(job.key, job.build());
    } catch (...) {  // NVRTC's error, or out of memory: the key's groups stay op by op
      ok = false;
    }
    lock.lock();
    --b.running;
    b.pending.erase(job.key);
    if (ok)
      ++b.stats.finished;
    else {
      ++b.stats.failed;
      b.failed.insert(job.key);
    }
    b.idle.notify_all();
  }
  --b.workers;
}

}  // namespace

void set_background_builds(bool on) { g_background.store(on ? 1 : 0); }

bool background_builds() {
  int v = g_background.load();
  if (v < 0) {
    const char* env = std::getenv("GENESIS_COMPILE_SYNC");
    v = env && *env && std::strcmp(env, "0") != 0 ? 0 : 1;
    g_background.store(v);
  }
  return v == 1;
}

bool cubin_or_start_build(const std::string& key, std::function<std::string()> build,
                          std::string& cubin) {
  if (find_cubin(key, cubin)) return true;
  Builds& b = builds();
  std::lock_guard<std::mutex> lock(b.mutex);
  if (b.exiting || b.failed.count(key) || !b.pending.insert(key).second) return false;
  b.queue.push_back({key, std::move(build)});
  // a new worker while the waiting ones are fewer than the queued jobs
  if (b.workers < max_workers() && b.workers - b.running < static_cast<int>(b.queue.size())) {
    try {
      std::thread([&b] { work(b); }).detach();
      ++b.workers;
    } catch (const std::system_error&) {  // no thread to be had: try again on a later run
      if (b.workers == 0) {
        b.queue.pop_back();
        b.pending.erase(key);
        return false;
      }
    }
  }
  ++b.stats.started;
  b.work.notify_one();
  return false;
}

void wait_for_builds() {
  Builds& b = builds();
  std::unique_lock<std::mutex> lock(b.mutex);
  b.idle.wait(lock, [&] { return b.pending.empty() || b.exiting; });
}

BuildStats build_stats() {
  Builds& b = builds();
  std::lock_guard<std::mutex> lock(b.mutex);
  BuildStats s = b.stats;
  s.pending = static_cast<int64_t>(b.pending.size());
  return s;
}

}  // namespace genesis::fusion

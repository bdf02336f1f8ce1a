#include "core/index_check.h"

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace genesis {

namespace {

std::atomic<int> mode{static_cast<int>(IndexCheckMode::Deferred)};
thread_local const char* current_op = nullptr;
thread_local unsigned current_seq = 0;  // the outermost scope's sequence number; 0 outside
std::atomic<unsigned> next_seq{1};
std::atomic<uint64_t> error_epoch{0};

constexpr int kMaxNames = 64;
// Appended under the lock, read without it: a slot is published by the release store of `count`.
std::array<const char*, kMaxNames> names{"index"};
std::atomic<int> count{1};
std::mutex mutex;

int find(const char* name, int n) {
  for (int i = 0; i < n; ++i)
    if (names[i] == name || std::strcmp(names[i], name) == 0) return i;
  return -1;
}

}  // namespace

void set_index_check_mode(IndexCheckMode m) {
  mode.store(static_cast<int>(m), std::memory_order_relaxed);
}

IndexCheckMode index_check_mode() {
  return static_cast<IndexCheckMode>(mode.load(std::memory_order_relaxed));
}

int index_op_code(const char* name) {
  int code = find(name, count.load(std::memory_order_acquire));
  if (code >= 0) return code;
  std::lock_guard<std::mutex> lock(mutex);
  int n = count.load(std::memory_order_relaxed);
  code = find(name, n);
  if (code >= 0) return code;
  if (n == kMaxNames) return 0;
  names[n] = strdup(name);  // kept for the process: a name may outlive its caller's string
  count.store(n + 1, std::memory_order_release);
  return n;
}

const char* index_op_name(int code) {
  return code >= 0 && code < count.load(std::memory_order_acquire) ? names[code] : "index";
}

unsigned fresh_index_seq() {
  unsigned seq = next_seq.fetch_add(1, std::memory_order_relaxed);
  return seq != 0 ? seq : next_seq.fetch_add(1, std::memory_order_relaxed);  // 0 means "fresh"
}

unsigned current_index_seq() { return current_seq; }

uint64_t index_error_epoch() { return error_epoch.load(std::memory_order_acquire); }

void note_index_error_raised() { error_epoch.fetch_add(1, std::memory_order_acq_rel); }

IndexOpScope::IndexOpScope(const char* op) : outermost_(current_op == nullptr) {
  if (!outermost_) return;
  current_op = op;
  current_seq = fresh_index_seq();
}

IndexOpScope::~IndexOpScope() {
  if (!outermost_) return;
  current_op = nullptr;
  current_seq = 0;
}

const char* current_index_op() { return current_op != nullptr ? current_op : "index"; }

}  // namespace genesis

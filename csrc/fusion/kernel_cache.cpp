// Note [Kernel cache]: a fused program's cubin is kept in a process-wide map and on disk, so a
// new process skips NVRTC. The file is <folder>/<64-bit hash of the key>.cubin and holds a
// magic line, the whole key (compared on read: a hash collision is a miss), the cubin, and a
// checksum of both; a file that is short, mangled or of another key is ignored (counted as
// rejected) and replaced by the next build. Writes go to a temporary file in the same folder
// that is renamed over the name, atomic on POSIX, so a reader sees a whole file or none, and two
// processes that build the same program at once both rename complete files of the same bytes.
// The key includes NVRTC's version and the architecture (cuda_executor.cpp), and the program's
// text, which includes the functors' text: a changed genesis makes new keys. A folder that cannot
// be made or written means no disk cache, never an error.
#include "fusion/kernel_cache.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "core/errors.h"

namespace genesis::fusion {

namespace {

constexpr char kMagic[] = "genesis-fused-cubin 1\n";

std::mutex g_mutex;
std::unordered_map<std::string, std::string> g_memory;

// A fork while a background build stores its cubin (Note [Building programs in the background])
// would leave the child's copy of g_mutex locked: take it around fork.
[[maybe_unused]] const bool g_fork_safe = [] {
  pthread_atfork([] { g_mutex.lock(); }, [] { g_mutex.unlock(); }, [] { g_mutex.unlock(); });
  return true;
}();
std::atomic<int64_t> g_memory_hits{0}, g_disk_hits{0}, g_builds{0}, g_disk_writes{0}, g_rejected{0};

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// mkdir -p; false when it cannot be made.
bool make_folder(const std::string& path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at < path.size() && path[at] != '/') continue;
    std::string part = path.substr(0, at);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st{};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool read_file(const std::string& path, std::string& out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return true;
}

std::string encode(const std::string& key, const std::string& cubin) {
  std::string body = str_cat(kMagic, key.size(), "\n", key, cubin.size(), "\n", cubin);
  return body + hex(fnv1a(body));
}

// The cubin of a file's content when it is whole and of `key`.
bool decode(const std::string& content, const std::string& key, std::string& cubin) {
  const size_t magic = std::strlen(kMagic);
  if (content.size() < magic + 16 || content.compare(0, magic, kMagic) != 0) return false;
  std::string body = content.substr(0, content.size() - 16);
  if (content.compare(content.size() - 16, 16, hex(fnv1a(body))) != 0) return false;
  size_t at = magic;
  auto number = [&](size_t& value) {
    size_t end = body.find('\n', at);
    if (end == std::string::npos || end == at || end - at > 19) return false;
    value = 0;
    for (size_t i = at; i < end; ++i) {
      if (body[i] < '0' || body[i] > '9') return false;
      value = value * 10 + static_cast<size_t>(body[i] - '0');
    }
    at = end + 1;
    return true;
  };
  size_t key_size = 0, cubin_size = 0;
  if (!number(key_size) || key_size > body.size() - at) return false;
  if (body.compare(at, key_size, key) != 0 || key_size != key.size()) return false;
  at += key_size;
  if (!number(cubin_size) || cubin_size != body.size() - at) return false;
  cubin = body.substr(at);
  return true;
}

void write_atomically(const std::string& folder, const std::string& path,
                      const std::string& content) {
  std::string tmp = str_cat(folder, "/.tmp-", getpid(), "-", hex(fnv1a(path)), "-XXXXXX");
  int fd = mkstemp(tmp.data());
  if (fd < 0) return;
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool ok = done == content.size() && ::fsync(fd) == 0;
  ::close(fd);
  if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) {
    g_disk_writes.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::remove(tmp.c_str());
}

}  // namespace

std::string cache_folder() {
  std::string base;
  if (const char* dir = std::getenv("GENESIS_CACHE_DIR"); dir && *dir)
    base = dir;
  else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    base = str_cat(xdg, "/genesis");
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = str_cat(home, "/.cache/genesis");
  return base.empty() ? base : base + "/kernels";
}

namespace {

// The disk cache's file for key ("" when there is no disk cache).
std::string cache_path(const std::string& key) {
  std::string folder = cache_folder();
  if (folder.empty() || !make_folder(folder)) return {};
  return str_cat(folder, "/", hex(fnv1a(key)), ".cubin");
}

}  // namespace

bool find_cubin(const std::string& key, std::string& cubin) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (auto it = g_memory.find(key); it != g_memory.end()) {
      g_memory_hits.fetch_add(1, std::memory_order_relaxed);
      cubin = it->second;
      return true;
    }
  }
  std::string path = cache_path(key), content;
  if (path.empty() || !read_file(path, content)) return false;
  if (!decode(content, key, cubin)) {
    g_rejected.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  g_disk_hits.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_memory.emplace(key, cubin);
  return true;
}

void keep_built_cubin(const std::string& key, const std::string& cubin) {
  g_builds.fetch_add(1, std::memory_order_relaxed);
  if (std::string path = cache_path(key); !path.empty())
    write_atomically(path.substr(0, path.rfind('/')), path, encode(key, cubin));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_memory[key] = cubin;
}

std::string cached_cubin(const std::string& key, const std::function<std::string()>& build) {
  std::string cubin;
  if (find_cubin(key, cubin)) return cubin;
  cubin = build();
  keep_built_cubin(key, cubin);
  return cubin;
}

CacheStats cache_stats() {
  CacheStats s;
  s.memory_hits = g_memory_hits.load();
  s.disk_hits = g_disk_hits.load();
  s.builds = g_builds.load();
  s.disk_writes = g_disk_writes.load();
  s.disk_rejected = g_rejected.load();
  return s;
}

void clear_memory_cache() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_memory.clear();
}

}  // namespace genesis::fusion

#include "cpu/shared_memory.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "core/errors.h"

namespace genesis::cpu {

// Note [Shared memory storages]
// share_memory_() copies a CPU storage's bytes into an anonymous shared memory file
// (memfd_create: no name in /dev/shm to clean up after a crash), maps it MAP_SHARED, and swaps
// the storage's memory for the map (Storage::replace_data), so tensors already holding the
// storage see the shared pages. Another process gets the file's descriptor (over a Unix socket:
// multiprocessing's DupFd, see genesis/multiprocessing/reductions.py) and maps the same pages:
// nothing is copied, and writes on either side are seen by the other. The memory lives while
// any process maps it; the descriptor and the map go with the last storage of each process.
// Each process maps a given shared file once: storages are remembered by the file's identity
// (device, inode) in a table of weak references, so two views sent one after the other arrive
// as views of one storage, and a storage sent back to its owner is the owner's own. Memory whose
// address had already left genesis (a NumPy array or DLPack consumer over it) is not freed by
// the move: it stays, no longer updated, while the storage lives, since others may still read
// it. Shared storages are marked shared (Note [Write versions]): other processes write them.

namespace {

struct SharedMapping {
  void* addr;
  size_t length;  // what was mapped: nbytes, at least 1 (mmap refuses 0)
  int fd;
  DataPtr previous;  // the memory before share_memory_, when its address had left genesis
};

void release_shared(void*, void* context) {
  auto* m = static_cast<SharedMapping*>(context);
  munmap(m->addr, m->length);
  close(m->fd);
  delete m;
}

using FileId = std::pair<dev_t, ino_t>;

std::mutex& table_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<FileId, std::weak_ptr<StorageImpl>>& table() {
  static auto* t = new std::map<FileId, std::weak_ptr<StorageImpl>>();  // never destroyed
  return *t;
}

FileId file_id(int fd, const char* op) {
  struct stat st{};
  GENESIS_CHECK(fstat(fd, &st) == 0, op,
                "cannot inspect the shared memory's descriptor: ", std::strerror(errno));
  return {st.st_dev, st.st_ino};
}

void remember(const FileId& id, const Storage& storage) {
  std::lock_guard<std::mutex> lock(table_mutex());
  auto& t = table();
  for (auto it = t.begin(); it != t.end();)  // forget the storages that are gone
    it = it->second.expired() ? t.erase(it) : std::next(it);
  t[id] = storage.impl();
}

// A MAP_SHARED map of `fd` (taken: closed with the map) as a DataPtr.
DataPtr map_shared(int fd, size_t nbytes, const char* op) {
  size_t length = nbytes > 0 ? nbytes : 1;
  void* addr = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) {
    int err = errno;
    close(fd);
    GENESIS_FAIL(ErrorKind::Runtime, op, "cannot map ", nbytes,
                 " bytes of shared memory: ", std::strerror(err));
  }
  return DataPtr(addr, new SharedMapping{addr, length, fd, DataPtr()}, &release_shared, kCPU);
}

}  // namespace

bool in_shared_memory(const Storage& storage) {
  return storage.device().is_cpu() && storage.data_ptr().deleter() == &release_shared;
}

int share_fd(const Storage& storage) {
  GENESIS_CHECK(in_shared_memory(storage), "share_memory_", "the storage is not in shared memory");
  return static_cast<SharedMapping*>(storage.data_ptr().context())->fd;
}

void share_memory_(const Storage& storage) {
  const char* op = "share_memory_";
  if (!storage.device().is_cpu() || in_shared_memory(storage)) return;
  size_t nbytes = storage.nbytes();
  int fd = memfd_create("genesis-shared", MFD_CLOEXEC);
  GENESIS_CHECK(fd >= 0, op, "cannot create shared memory: ", std::strerror(errno));
  if (ftruncate(fd, static_cast<off_t>(nbytes > 0 ? nbytes : 1)) != 0) {
    int err = errno;
    close(fd);
    GENESIS_FAIL(ErrorKind::Runtime, op, "cannot size shared memory of ", nbytes,
                 " bytes: ", std::strerror(err));
  }
  DataPtr shared = map_shared(fd, nbytes, op);
  if (nbytes > 0) std::memcpy(shared.get(), storage.data(), nbytes);
  // Memory whose address has left genesis (NumPy, DLPack, data_ptr()) may still be used there:
  // it is kept, unchanged from now on, while the storage lives.
  DataPtr previous = storage.replace_data(std::move(shared));
  if (storage.is_shared())
    static_cast<SharedMapping*>(storage.data_ptr().context())->previous = std::move(previous);
  storage.mark_shared();  // other processes write it from now on
  remember(file_id(fd, op), storage);
}

Storage storage_from_share_fd(int fd, size_t nbytes) {
  const char* op = "share_memory_";
  FileId id = file_id(fd, op);
  {
    std::lock_guard<std::mutex> lock(table_mutex());
    auto it = table().find(id);
    if (it != table().end()) {
      if (auto impl = it->second.lock(); impl && impl->nbytes() >= nbytes)
        return Storage(std::move(impl));
    }
  }
  struct stat st{};
  GENESIS_CHECK(fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= nbytes, op,
                "the shared memory holds fewer than the ", nbytes, " bytes expected");
  int own = dup(fd);
  GENESIS_CHECK(own >= 0, op,
                "cannot duplicate the shared memory's descriptor: ", std::strerror(errno));
  Storage storage = Storage::wrap(map_shared(own, nbytes, op), nbytes);
  storage.mark_shared();
  remember(id, storage);
  return storage;
}

}  // namespace genesis::cpu

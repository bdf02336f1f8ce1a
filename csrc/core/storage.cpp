#include "core/storage.h"

#include <algorithm>
#include <utility>

#include "core/errors.h"

namespace genesis {

Storage Storage::allocate(size_t nbytes, Device device) {
  return own(allocator_for(device)->allocate(nbytes), nbytes);
}

Storage Storage::own(DataPtr data, size_t nbytes) {
  return Storage(std::make_shared<StorageImpl>(std::move(data), nbytes, true, true));
}

Storage Storage::wrap(DataPtr data, size_t nbytes, bool writable) {
  return Storage(std::make_shared<StorageImpl>(std::move(data), nbytes, writable));
}

// Reached only by a write path without its own check_writable (Note [Read-only storages]).
void StorageImpl::refuse_write() {
  GENESIS_FAIL(ErrorKind::Value, "write",
               "cannot write into a read-only tensor: its memory is a read-only buffer");
}

void StorageImpl::set_writer(std::shared_ptr<Deferred> writer) {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  writer_ = std::move(writer);
  deferred_.fetch_or(kPending, std::memory_order_relaxed);
}

void StorageImpl::set_reader(std::shared_ptr<Deferred> reader) {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  for (const auto& r : readers_)
    if (r == reader) return;
  readers_.push_back(std::move(reader));
  deferred_.fetch_or(kWatched, std::memory_order_relaxed);
}

void StorageImpl::release(const Deferred* work) {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  if (writer_.get() == work) writer_.reset();
  std::erase_if(readers_, [work](const auto& r) { return r.get() == work; });
  deferred_.store(
      static_cast<uint8_t>((writer_ ? kPending : 0) | (readers_.empty() ? 0 : kWatched)),
      std::memory_order_relaxed);
}

StorageImpl::~StorageImpl() {
  if (writer_) writer_->abandon();
}

std::shared_ptr<Deferred> StorageImpl::pending_writer() const {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  return writer_;
}

const Deferred* StorageImpl::writer() const {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  return writer_.get();
}

void StorageImpl::settle(bool for_write) const {
  std::shared_ptr<Deferred> writer;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    writer = writer_;
  }
  // The work runs without this storage's lock: it releases every storage it holds.
  if (writer) writer->run();
  if (!for_write) return;
  // The readers as they are now: running the writer may have added some (a recomputation that
  // reads these values, Note [Recomputed values] in fusion/group.cpp), and so may a reader.
  // Each runs once here (one still listed is mid-run on this thread, and lets go when done).
  std::vector<std::shared_ptr<Deferred>> ran;  // held: no new work takes a freed one's address
  while (true) {
    std::vector<std::shared_ptr<Deferred>> readers;
    {
      std::lock_guard<std::mutex> lock(deferred_mutex_);
      for (const auto& r : readers_)
        if (std::find(ran.begin(), ran.end(), r) == ran.end()) readers.push_back(r);
    }
    if (readers.empty()) return;
    for (const auto& r : readers) {
      ran.push_back(r);
      r->run();
    }
  }
}

}  // namespace genesis

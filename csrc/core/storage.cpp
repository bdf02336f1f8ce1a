#include "core/storage.h"

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

const Deferred* StorageImpl::writer() const {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  return writer_.get();
}

void StorageImpl::settle(bool for_write) const {
  std::shared_ptr<Deferred> writer;
  std::vector<std::shared_ptr<Deferred>> readers;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    writer = writer_;
    if (for_write) readers = readers_;
  }
  // The work runs without this storage's lock: it releases every storage it holds.
  if (writer) writer->run();
  for (const auto& r : readers) r->run();
}

}  // namespace genesis

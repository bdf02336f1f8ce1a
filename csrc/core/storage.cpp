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
  std::shared_ptr<Deferred> earlier;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    if (reader_ != reader) earlier = std::exchange(reader_, std::move(reader));
    deferred_.fetch_or(kWatched, std::memory_order_relaxed);
  }
  if (earlier) earlier->run();  // outside the lock: the run clears this storage's fields
}

void StorageImpl::release(const Deferred* work) {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  if (writer_.get() == work) writer_.reset();
  if (reader_.get() == work) reader_.reset();
  deferred_.store(static_cast<uint8_t>((writer_ ? kPending : 0) | (reader_ ? kWatched : 0)),
                  std::memory_order_relaxed);
}

const Deferred* StorageImpl::writer() const {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  return writer_.get();
}

void StorageImpl::settle(bool for_write) const {
  std::shared_ptr<Deferred> writer, reader;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    writer = writer_;
    if (for_write) reader = reader_;
  }
  // The work runs without this storage's lock: it clears the fields of every storage it holds.
  if (writer) writer->run();
  if (reader) reader->run();
}

}  // namespace genesis

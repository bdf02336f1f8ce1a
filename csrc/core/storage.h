#pragma once
// Storage: a ref-counted byte buffer on one device. Views share one Storage; the memory goes back
// to its allocator when the last tensor (or Python handle) that uses it is gone.
#include <cstddef>
#include <memory>

#include "core/allocator.h"

namespace genesis {

class StorageImpl {
 public:
  StorageImpl(DataPtr data, size_t nbytes) : data_(std::move(data)), nbytes_(nbytes) {}
  void* data() const { return data_.get(); }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device(); }
  const DataPtr& data_ptr() const { return data_; }

 private:
  DataPtr data_;
  size_t nbytes_;
};

class Storage {
 public:
  Storage() = default;
  explicit Storage(std::shared_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}

  // Fresh memory from the device's allocator.
  static Storage allocate(size_t nbytes, Device device);
  // Wraps memory owned elsewhere (NumPy, DLPack producers); the DataPtr's deleter releases it.
  static Storage wrap(DataPtr data, size_t nbytes);

  void* data() const { return impl_->data(); }
  size_t nbytes() const { return impl_->nbytes(); }
  Device device() const { return impl_->device(); }
  const DataPtr& data_ptr() const { return impl_->data_ptr(); }
  long use_count() const { return impl_.use_count(); }
  bool defined() const { return impl_ != nullptr; }
  bool is_same(const Storage& o) const { return impl_ == o.impl_; }

 private:
  std::shared_ptr<StorageImpl> impl_;
};

}  // namespace genesis

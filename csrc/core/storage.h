#pragma once
// Storage: a ref-counted byte buffer on one device. Views share one Storage; the memory goes back
// to its allocator when the last tensor (or Python handle) that uses it is gone.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/allocator.h"
#include "core/scalar_type.h"
#include "core/shape.h"

namespace genesis {

// Note [Write versions]: mutable_data() is the only way to an address that may be written, and
// every call of it counts a new write version of the storage, so "version unchanged" proves the
// bytes unchanged by genesis. Reads use data(), whose const pointer cannot be written through
// without a cast and counts nothing, so reading a tensor (item(), printing, an op's input) keeps
// what is known about it. Memory whose
// address has left genesis (DLPack, NumPy, data_ptr(); imported buffers) may be written by
// others at any time: it is marked shared, and no fact about its content is remembered (handing
// the address out counts no version: the version counts genesis's own writes, which is what
// autograd's saved-tensor check asks, as PyTorch's, where .numpy() is not a write). A
// ContentMemo is one such fact: a number about one view's values, valid while the storage is
// not shared and its write version is the one recorded (the index bounds check uses it, Note
// [Validated index memo] in index/index_memo.h).
struct ContentMemo {
  uint64_t version = 0;
  int64_t offset = 0;
  Shape sizes, strides;
  ScalarType dtype = ScalarType::Bool;
  int64_t value = 0;
  uint64_t epoch = 0;  // the index-error epoch it was made in (Note [Validated index memo])
};

// Note [Read-only storages]: memory wrapped from a read-only buffer (a NumPy array whose
// `writeable` flag is off: np.frombuffer of bytes, a memmap opened with mode='r'; a DLPack
// capsule flagged READ_ONLY) is a read-only storage, fixed when it is wrapped. Writing it would
// mutate an immutable object or fault on a read-only page, so:
// - every op that writes a tensor checks first, check_writable(t, "op") in core/tensor.h, and
//   raises ValueError "[op] ... read-only ..." (NumPy's error kind) before doing anything;
// - mutable_data() refuses too ("[write] ..."), a backstop for a write path that lacks its own
//   check, so nothing reaches the memory silently;
// - share_data() (data_ptr(), NumPy and DLPack export) does not go through mutable_data(): the
//   address leaves genesis, and the exports say read-only (a NumPy array with writeable=False,
//   a versioned DLPack capsule with DLPACK_FLAG_BITMASK_READ_ONLY; a legacy capsule, which
//   cannot say it, is a copy, or a BufferError under copy=False).
// Views share the storage, so they are read-only too; ops that make new memory (clone,
// contiguous of a strided view, to() with a change, arithmetic) give writable tensors, as NumPy.
// Note [Deferred storages]: inside a compiled region (Note [Fusing by deferring elementwise
// ops] in fusion/group.h) an elementwise op may leave its result to be computed later, together
// with the ops after it, in one fused pass. Its storage then has memory but not yet its values:
// it is *pending*, and the work that will write it is a Deferred. A storage that deferred work
// reads is *watched*: its values must not change before that work has read them. Every way to
// the bytes settles first, so no caller sees a difference:
// - data() (any read: an op's input, item(), printing) runs the work a pending storage waits
//   for; a watched storage may be read as it is;
// - mutable_data() and share_data() (a write, or the address leaving genesis) run the work of a
//   pending storage and the work that watches a watched one.
// The check is one relaxed atomic load on each access; the slow path takes the lock.
// Note [Pending storages hold no memory]: the fresh memory an op allocated for a result goes back
// to the allocator when deferred work becomes its writer, and memory comes back from the
// allocator (on the work's stream) just before the work writes the values. So the temporaries
// of a fused chain, and the values recomputed for a backward pass instead of stored (Note
// [Recomputed values] in fusion/group.cpp), take no memory at all: a compiled training step
// holds only the activations it writes. Every way to the memory (data(), mutable_data(),
// share_data(), data_ptr()) settles first; nbytes() and device() are read as they are.
class Deferred {
 public:
  virtual ~Deferred() = default;
  // Computes and writes everything the work holds; after it, no storage points to it.
  virtual void run() = 0;
  // The pending storage this work would write is going away unwritten: the work lets go of what
  // it holds for it (a recomputation's watched inputs, which point back to it).
  virtual void abandon() {}
};

class StorageImpl {
 public:
  StorageImpl(DataPtr data, size_t nbytes, bool writable = true, bool owned = false)
      : data_(std::move(data)), nbytes_(nbytes), writable_(writable), owned_(owned) {}
  ~StorageImpl();
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  void* mutable_data() {
    if (!writable_) [[unlikely]]
      refuse_write();
    if (deferred_.load(std::memory_order_relaxed)) [[unlikely]]
      settle(true);
    version_.fetch_add(1, std::memory_order_relaxed);
    return data_.get();
  }
  // The address for others (Note [Write versions]); for a read-only storage they must honour
  // is_writable() (Note [Read-only storages]).
  void* share_data() {
    if (deferred_.load(std::memory_order_relaxed)) [[unlikely]]
      settle(true);
    mark_shared();  // writes by others from now on are unknown, whatever the version says
    return data_.get();
  }
  bool is_writable() const { return writable_; }
  // Whether genesis's own allocator made the memory (Note [Resizing] in ops/resize.cpp): only
  // such a storage may be replaced by a larger one; a file's map, a NumPy array's or a DLPack
  // producer's memory, shared memory, may not.
  bool is_owned() const { return owned_; }
  const void* data() const {
    if (deferred_.load(std::memory_order_relaxed) & kPending) [[unlikely]]
      settle(false);
    return data_.get();
  }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device(); }
  const DataPtr& data_ptr() const {
    if (deferred_.load(std::memory_order_relaxed) & kPending) [[unlikely]]
      settle(false);  // Note [Pending storages hold no memory]: the memory comes with the values
    return data_;
  }

  uint64_t write_version() const { return version_.load(std::memory_order_relaxed); }
  // How many of autograd's saved tensors hold this storage (Note [Exports of saved tensors] in
  // autograd/node.h): while any does, exports give read-only views.
  void add_saved_uses(int64_t delta) { saved_uses_.fetch_add(delta, std::memory_order_relaxed); }
  bool is_saved_for_backward() const { return saved_uses_.load(std::memory_order_relaxed) > 0; }
  int64_t saved_uses() const { return saved_uses_.load(std::memory_order_relaxed); }
  void mark_shared() { shared_.store(true, std::memory_order_relaxed); }
  bool is_shared() const { return shared_.load(std::memory_order_relaxed); }
  // Puts the same bytes (nbytes() of them, copied by the caller) at a new address, e.g. in shared
  // memory (share_memory_), and hands the old memory back. No other thread may be using the
  // storage meanwhile (as torch's share_memory_).
  DataPtr replace_data(DataPtr data) {
    std::swap(data_, data);
    owned_ = false;
    return data;
  }

  // Whether there is a remembered fact and `test` holds for it (tested under the lock).
  template <typename Test>
  bool memo_holds(const Test& test) const {
    std::lock_guard<std::mutex> lock(memo_mutex_);
    return has_memo_ && test(memo_);
  }
  void set_memo(ContentMemo memo) {
    std::lock_guard<std::mutex> lock(memo_mutex_);
    memo_ = std::move(memo);
    has_memo_ = true;
  }

  // Note [Deferred storages]. `writer` will compute the values (the storage is pending);
  // `reader` reads them (the storage is watched; several may, each run before a write). The work
  // lets go of the storage (release) before it touches the memory.
  void set_writer(std::shared_ptr<Deferred> writer);
  void set_reader(std::shared_ptr<Deferred> reader);
  void release(const Deferred* work);
  // Where deferred work writes the result it owes (after release): no write version is counted,
  // as eager code wrote these values before anyone could see or save the tensor.
  void* result_data() { return data_.get(); }
  // Note [Pending storages hold no memory]: a pending storage gives its memory back until its
  // writer writes it: only the work that will write it calls these, under its own lock.
  void drop_memory() { data_ = DataPtr(nullptr, nullptr, nullptr, data_.device()); }
  bool has_memory() const { return data_.get() != nullptr || nbytes_ == 0; }
  void provide_memory(DataPtr data) { data_ = std::move(data); }
  // The work that will write this storage, if any (compared, never run, by the caller).
  const Deferred* writer() const;
  std::shared_ptr<Deferred> pending_writer() const;
  bool is_pending() const { return deferred_.load(std::memory_order_relaxed) & kPending; }

 private:
  DataPtr data_;
  size_t nbytes_;
  std::atomic<uint64_t> version_{0};
  std::atomic<bool> shared_{false};
  std::atomic<int64_t> saved_uses_{0};
  mutable std::mutex memo_mutex_;
  bool has_memo_ = false;
  ContentMemo memo_;
  const bool writable_;
  bool owned_;
  // Note [Deferred storages]: deferred_ says whether writer_ (kPending) and readers_ (kWatched)
  // are set; it is read without the lock on every access.
  static constexpr uint8_t kPending = 1, kWatched = 2;
  std::atomic<uint8_t> deferred_{0};
  mutable std::mutex deferred_mutex_;
  std::shared_ptr<Deferred> writer_;
  std::vector<std::shared_ptr<Deferred>> readers_;

  [[noreturn]] static void refuse_write();
  // Runs the writer (and, for a write, the readers) this storage waits for.
  void settle(bool for_write) const;
};

class Storage {
 public:
  Storage() = default;
  explicit Storage(std::shared_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}

  // Fresh memory from the device's allocator.
  static Storage allocate(size_t nbytes, Device device);
  // Wraps memory owned elsewhere (NumPy, DLPack producers, file maps); the DataPtr's deleter
  // releases it. `writable` false makes a read-only storage (Note [Read-only storages]).
  static Storage wrap(DataPtr data, size_t nbytes, bool writable = true);
  // Memory that one of genesis's allocators made (so a resize may replace it).
  static Storage own(DataPtr data, size_t nbytes);

  // Counts a write version (Note [Write versions]); raises for a read-only storage.
  void* mutable_data() const { return impl_->mutable_data(); }
  const void* data() const { return impl_->data(); }
  size_t nbytes() const { return impl_->nbytes(); }
  Device device() const { return impl_->device(); }
  const DataPtr& data_ptr() const { return impl_->data_ptr(); }
  long use_count() const { return impl_.use_count(); }
  bool defined() const { return impl_ != nullptr; }
  bool is_same(const Storage& o) const { return impl_ == o.impl_; }
  // An identity for the storage (equal for handles of one storage), e.g. for pickling's memo.
  uintptr_t id() const { return reinterpret_cast<uintptr_t>(impl_.get()); }

  uint64_t write_version() const { return impl_->write_version(); }
  // The address leaves genesis: others may write at any time (Note [Write versions]); a
  // read-only storage's address is handed out too, flagged read-only by the caller.
  void* share_data() const { return impl_->share_data(); }
  bool is_writable() const { return impl_->is_writable(); }
  bool is_owned() const { return impl_->is_owned(); }
  bool is_saved_for_backward() const { return impl_->is_saved_for_backward(); }
  void mark_shared() const { impl_->mark_shared(); }
  bool is_shared() const { return impl_->is_shared(); }
  DataPtr replace_data(DataPtr data) const { return impl_->replace_data(std::move(data)); }
  // The shared owner of the storage, for caches that must not keep it alive (weak_ptr).
  const std::shared_ptr<StorageImpl>& impl() const { return impl_; }
  template <typename Test>
  bool memo_holds(const Test& test) const {
    return impl_->memo_holds(test);
  }
  void set_memo(ContentMemo memo) const { impl_->set_memo(std::move(memo)); }

 private:
  std::shared_ptr<StorageImpl> impl_;
};

}  // namespace genesis

#pragma once
// Tensor: a typed, strided window (sizes, strides in elements, storage offset) on a Storage.
// Copying a Tensor makes another view of the same memory.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/scalar_type.h"
#include "core/shape.h"
#include "core/storage.h"

namespace genesis {

// Defined by the autograd layer (csrc/autograd/meta.h); core only carries the pointer
// (Note [Autograd meta] there).
struct AutogradMeta;

class Tensor {
 public:
  Tensor() = default;
  Tensor(Storage storage, Shape sizes, Shape strides, int64_t offset, ScalarType dtype)
      : storage_(std::move(storage)),
        sizes_(std::move(sizes)),
        strides_(std::move(strides)),
        offset_(offset),
        dtype_(dtype) {}

  // A new contiguous tensor with uninitialized memory.
  static Tensor empty(const Shape& sizes, ScalarType dtype, Device device);
  static Tensor empty(Shape&& sizes, ScalarType dtype, Device device);

  const Storage& storage() const { return storage_; }
  const Shape& sizes() const { return sizes_; }
  const Shape& strides() const { return strides_; }
  int64_t size(int64_t dim) const;    // dim may be negative
  int64_t stride(int64_t dim) const;  // dim may be negative
  int64_t ndim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_of(sizes_); }
  int64_t storage_offset() const { return offset_; }
  ScalarType dtype() const { return dtype_; }
  size_t itemsize() const { return genesis::itemsize(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }
  Device device() const { return storage_.device(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_contiguous() const { return genesis::is_contiguous(sizes_, strides_); }
  bool defined() const { return storage_.defined(); }
  // False for views of a read-only buffer (Note [Read-only storages] in core/storage.h).
  bool is_writable() const { return storage_.is_writable(); }

  // Address of the first element (the storage's base plus the offset). data() only reads;
  // mutable_data() may be written through and counts a write version; share_data() hands the
  // address out of genesis (Note [Write versions] in core/storage.h).
  const void* data() const;
  void* mutable_data() const;
  void* share_data() const;
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(data());
  }
  template <typename T>
  T* mutable_data_as() const {
    return static_cast<T*>(mutable_data());
  }

  // Whether both are the very same view (storage, layout, dtype).
  bool is_same_view(const Tensor& o) const {
    return storage_.is_same(o.storage_) && sizes_ == o.sizes_ && strides_ == o.strides_ &&
           offset_ == o.offset_ && dtype_ == o.dtype_;
  }

  // Note [Overlapping copies]: whether two views may touch the same bytes (same storage and
  // intersecting address ranges; a cheap, conservative test), and whether a view has elements
  // that share memory (a zero stride on a dim of size > 1, as expand makes). A copy between
  // overlapping views goes through a temporary, so it gives NumPy's result; a copy into a view
  // with shared elements is refused, as in PyTorch.
  bool may_overlap(const Tensor& o) const;
  bool has_shared_elements() const;

  // The same memory seen with other sizes/strides/offset (offset in elements). The result
  // carries no autograd history: the autograd layer adds it.
  Tensor as_strided(Shape sizes, Shape strides, int64_t offset) const {
    return Tensor(storage_, std::move(sizes), std::move(strides), offset, dtype_);
  }

  // The autograd record (null for a tensor that never required grad). Copies of a Tensor
  // share it, as copies of a PyTorch Tensor share their TensorImpl: they are the same tensor
  // to autograd. Mutable so that requires_grad_() can add it to a tensor held as const.
  const std::shared_ptr<AutogradMeta>& autograd_meta() const { return autograd_; }
  void set_autograd_meta(std::shared_ptr<AutogradMeta> meta) const { autograd_ = std::move(meta); }

 private:
  Storage storage_;
  Shape sizes_;
  Shape strides_;
  int64_t offset_ = 0;
  ScalarType dtype_ = ScalarType::Float32;
  mutable std::shared_ptr<AutogradMeta> autograd_;
};

// Every op that writes `t` calls this first: a ValueError "[op] ..." for a read-only tensor
// (Note [Read-only storages] in core/storage.h), then, for a tensor with an autograd record,
// the write guard the autograd layer installed (Note [In-place ops and autograd] in
// autograd/inplace.cpp), which refuses writes that would make gradients wrong.
void check_writable(const Tensor& t, const char* op);
using WriteGuard = void (*)(const Tensor& t, const char* op);
void set_write_guard(WriteGuard guard);

// Borrowed tensors, null for an undefined one: for calls over hundreds of tensors (the optimizer
// steps), where copying each Tensor (its shape and strides are heap vectors) would cost more on
// the host than the call's own work.
using TensorRefs = std::vector<const Tensor*>;

}  // namespace genesis

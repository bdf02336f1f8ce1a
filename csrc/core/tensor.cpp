#include "core/tensor.h"

#include <atomic>

#include "core/device_backend.h"
#include "core/errors.h"
#include "core/memory_events.h"

namespace genesis {

Tensor Tensor::empty(const Shape& sizes, ScalarType dtype, Device device) {
  return empty(Shape(sizes), dtype, device);
}

Tensor Tensor::empty(Shape&& sizes, ScalarType dtype, Device device) {
  int64_t n = checked_numel(sizes, "empty");
  if (!device.is_cpu()) device = device_backend(device.type).resolve(device);
  auto bytes = static_cast<size_t>(
      checked_nbytes(n, static_cast<int64_t>(genesis::itemsize(dtype)), "empty"));
  Shape strides = contiguous_strides(sizes);
  Storage storage = [&] {
    // Note [Tensor shapes of memory events]
    ScopedTensorAllocation named(sizes.data(), sizes.size(), static_cast<int8_t>(dtype));
    return Storage::allocate(bytes, device);
  }();
  return Tensor(std::move(storage), std::move(sizes), std::move(strides), 0, dtype);
}

int64_t Tensor::size(int64_t dim) const {
  GENESIS_CHECK_INDEX(ndim() > 0, "size", "dimension specified as ", dim,
                      " but tensor has no dimensions");
  return sizes_[wrap_dim(dim, ndim(), "size")];
}

int64_t Tensor::stride(int64_t dim) const {
  GENESIS_CHECK_INDEX(ndim() > 0, "stride", "dimension specified as ", dim,
                      " but tensor has no dimensions");
  return strides_[wrap_dim(dim, ndim(), "stride")];
}

namespace {
template <typename Char>
Char* at_offset(Char* base, int64_t offset, size_t itemsize) {
  return base == nullptr ? nullptr : base + offset * static_cast<int64_t>(itemsize);
}
}  // namespace

const void* Tensor::data() const {
  return at_offset(static_cast<const char*>(storage_.data()), offset_, itemsize());
}

void* Tensor::mutable_data() const {
  return at_offset(static_cast<char*>(storage_.mutable_data()), offset_, itemsize());
}

void* Tensor::share_data() const {
  return at_offset(static_cast<char*>(storage_.share_data()), offset_, itemsize());
}

namespace {
// [first, last] byte offsets that a view can address, relative to its storage's base.
std::pair<int64_t, int64_t> byte_extent(const Tensor& t) {
  int64_t lo = t.storage_offset(), hi = t.storage_offset();
  for (int64_t d = 0; d < t.ndim(); ++d) {
    int64_t reach = t.strides()[d] * (t.sizes()[d] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  auto item = static_cast<int64_t>(t.itemsize());
  return {lo * item, hi * item + item - 1};
}
}  // namespace

namespace {
std::atomic<WriteGuard> write_guard{nullptr};
}

void set_write_guard(WriteGuard guard) { write_guard.store(guard); }

void check_writable(const Tensor& t, const char* op) {
  GENESIS_CHECK_VALUE(!t.defined() || t.is_writable(), op,
                      "cannot write into a read-only tensor: its memory is a read-only buffer "
                      "(a NumPy array with writeable=False, bytes, a read-only memory map, a "
                      "read-only DLPack export); clone() it for a writable copy");
  if (t.autograd_meta() != nullptr)
    if (WriteGuard guard = write_guard.load(std::memory_order_relaxed)) guard(t, op);
}

bool Tensor::may_overlap(const Tensor& o) const {
  if (!defined() || !o.defined() || !storage_.is_same(o.storage_)) return false;
  if (numel() == 0 || o.numel() == 0) return false;
  auto [a_lo, a_hi] = byte_extent(*this);
  auto [b_lo, b_hi] = byte_extent(o);
  return a_lo <= b_hi && b_lo <= a_hi;
}

bool Tensor::has_shared_elements() const {
  for (int64_t d = 0; d < ndim(); ++d)
    if (sizes_[d] > 1 && strides_[d] == 0) return true;
  return false;
}

}  // namespace genesis

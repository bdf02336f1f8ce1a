#include "ops/resize.h"

#include "core/errors.h"
#include "ops/copy.h"

namespace genesis::ops {

// Note [Resizing]
// As PyTorch's resize_: the new sizes get contiguous strides at the same storage offset, and
// the storage's bytes stay where they are, so a contiguous tensor keeps its leading elements
// (new elements are uninitialized). A storage too small for the new sizes is replaced by a
// larger one that starts with a copy of the old bytes. PyTorch grows the storage object in
// place, so every view of it follows; genesis storages never move their memory (raw addresses
// are handed to NumPy, DLPack and CUDA streams), so genesis grows a storage only when this
// tensor is its sole user, and otherwise raises RuntimeError: when views of it exist, or when
// it was shared with NumPy/DLPack (PyTorch also refuses those: "not resizable"). Shrinking or
// resizing within the storage never reallocates, as in PyTorch. A read-only tensor is refused.
void resize_(Tensor& t, const Shape& sizes, const char* op) {
  check_writable(t, op);
  for (int64_t s : sizes)
    GENESIS_CHECK_VALUE(s >= 0, op, "sizes must be non-negative, got ", shape_str(sizes));
  Shape strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(sizes[i], 1);
  }
  int64_t numel = numel_of(sizes);
  size_t needed = static_cast<size_t>(numel == 0 ? 0 : t.storage_offset() + numel) * t.itemsize();
  if (needed <= t.storage().nbytes()) {
    t = t.as_strided(sizes, std::move(strides), t.storage_offset());
    return;
  }
  GENESIS_CHECK(!t.storage().is_shared(), op,
                "can't grow a storage that was shared outside genesis (NumPy, DLPack)");
  GENESIS_CHECK(t.storage().use_count() == 1, op,
                "can't grow a storage that other tensors (views) share; genesis never moves a "
                "storage's memory. Resize a tensor that owns its storage, or use a new one");
  Tensor grown = Tensor::empty({static_cast<int64_t>(needed)}, ScalarType::UInt8, t.device());
  int64_t old = static_cast<int64_t>(t.storage().nbytes());
  if (old > 0) {
    Tensor from(t.storage(), {old}, {1}, 0, ScalarType::UInt8);
    copy_(Tensor(grown.storage(), {old}, {1}, 0, ScalarType::UInt8), from);
  }
  t = Tensor(grown.storage(), sizes, std::move(strides), t.storage_offset(), t.dtype());
}

}  // namespace genesis::ops

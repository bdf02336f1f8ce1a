#include "ops/resize.h"

#include <algorithm>

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
// tensor is its sole user and genesis's allocator made its memory (Storage::is_owned), and
// otherwise raises RuntimeError: when views of it exist, when it was shared with NumPy/DLPack,
// or when its memory is a file's map, another library's, or shared memory (replacing it would
// silently detach the tensor from the file: PyTorch also refuses, "not resizable"). Shrinking
// or resizing within the storage never reallocates, as in PyTorch. A read-only tensor is
// refused. Every count and byte offset is checked arithmetic (Note [Checked sizes]): a size
// whose bytes wrap 64 bits must not pass for a small one.
void resize_(Tensor& t, const Shape& sizes, const char* op) {
  check_writable(t, op);
  for (int64_t s : sizes)
    GENESIS_CHECK_VALUE(s >= 0, op, "sizes must be non-negative, got ", shape_str(sizes));
  int64_t numel = checked_numel(sizes, op);
  Shape strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    // The last dim's product is not a stride: only check what strides use.
    if (i > 0) stride = checked_mul(stride, std::max<int64_t>(sizes[i], 1), op);
  }
  auto item = static_cast<int64_t>(t.itemsize());
  size_t needed = numel == 0 ? 0
                             : static_cast<size_t>(checked_nbytes(
                                   checked_add(t.storage_offset(), numel, op), item, op));
  if (needed <= t.storage().nbytes()) {
    t = t.as_strided(sizes, std::move(strides), t.storage_offset());
    return;
  }
  GENESIS_CHECK(!t.storage().is_shared(), op,
                "can't grow a storage that was shared outside genesis (NumPy, DLPack)");
  GENESIS_CHECK(t.storage().is_owned(), op,
                "Trying to resize storage that is not resizable: its memory is a file's map, "
                "shared memory or another library's (",
                t.storage().nbytes(), " bytes); copy the tensor with clone() and resize the copy");
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

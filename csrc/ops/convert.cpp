#include "ops/convert.h"

#include "core/errors.h"
#include "core/memory_events.h"
#include "cuda/memory.h"
#include "cuda/runtime.h"
#include "fusion/group.h"
#include "ops/copy.h"
#include "ops/layout.h"

namespace genesis::ops {

Tensor copy_to(const Tensor& t, ScalarType dtype, Device device, bool non_blocking) {
  bool pinned_landing = non_blocking && device.is_cpu() && t.is_cuda();
  // a copy keeps a channels-last layout (Note [Layouts that results keep] in ops/layout.cpp)
  Tensor out = pinned_landing ? empty_pinned(t.sizes(), dtype)
                              : empty_in_layout_of(t.sizes(), dtype, device, t);
  // in a compiled region, a cast on one device may join a fused group (fusion/group.h)
  if (!pinned_landing && fusion::region_active() && fusion::defer_cast(out, t)) return out;
  copy_(out, t, non_blocking);
  return out;
}

Tensor to(const Tensor& t, ScalarType dtype, Device device, bool copy, bool non_blocking) {
  if (device.is_cuda()) device = cuda::resolve(device);
  if (!copy && dtype == t.dtype() && device == t.device()) return t;
  return copy_to(t, dtype, device, non_blocking);
}

Tensor clone(const Tensor& t) { return copy_to(t, t.dtype(), t.device()); }

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = Tensor::empty(t.sizes(), t.dtype(), t.device());
  copy_(out, t);
  return out;
}

Tensor empty_pinned(const Shape& sizes, ScalarType dtype) {
  int64_t n = checked_numel(sizes, "empty");
  size_t bytes = static_cast<size_t>(n) * itemsize(dtype);
  ScopedTensorAllocation named(sizes.data(), sizes.size(), static_cast<int8_t>(dtype));
  Storage storage = Storage::own(cuda::pinned_allocator()->allocate(bytes), bytes);
  return Tensor(storage, sizes, contiguous_strides(sizes), 0, dtype);
}

bool is_pinned(const Tensor& t) { return !t.is_cuda() && cuda::is_pinned(t.storage().data()); }

Tensor pin_memory(const Tensor& t) {
  GENESIS_CHECK(!t.is_cuda(), "pin_memory", "cannot pin a ", t.device().str(),
                " tensor: only CPU memory can be pinned");
  if (is_pinned(t)) return t;
  Tensor out = empty_pinned(t.sizes(), t.dtype());
  copy_(out, t);
  return out;
}

}  // namespace genesis::ops

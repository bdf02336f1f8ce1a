#include "ops/convert.h"

#include "cuda/backend.h"
#include "ops/copy.h"

namespace genesis::ops {

Tensor copy_to(const Tensor& t, ScalarType dtype, Device device) {
  Tensor out = Tensor::empty(t.sizes(), dtype, device);
  copy_(out, t);
  return out;
}

Tensor to(const Tensor& t, ScalarType dtype, Device device, bool copy) {
  if (device.is_cuda()) device = cuda::resolve(device);
  if (!copy && dtype == t.dtype() && device == t.device()) return t;
  return copy_to(t, dtype, device);
}

Tensor clone(const Tensor& t) { return copy_to(t, t.dtype(), t.device()); }

Tensor contiguous(const Tensor& t) { return t.is_contiguous() ? t : clone(t); }

}  // namespace genesis::ops

#include "ops/copy.h"

#include <algorithm>

#include "core/errors.h"
#include "cpu/copy.h"
#include "cuda/backend.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

// The smallest contiguous byte range of the storage that holds every element of t.
struct Span {
  int64_t first_element;  // storage index of the lowest element
  int64_t count;          // elements from there to the highest one, inclusive
};
Span span_of(const Tensor& t) {
  int64_t lo = t.storage_offset(), hi = t.storage_offset();
  for (int64_t d = 0; d < t.ndim(); ++d) {
    int64_t reach = (t.sizes()[d] - 1) * t.strides()[d];
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi - lo + 1};
}

// A host copy of the memory under t, seen through t's own layout.
Tensor host_mirror(const Tensor& t) {
  Span span = span_of(t);
  size_t item = t.itemsize();
  Storage host = Storage::allocate(static_cast<size_t>(span.count) * item, kCPU);
  const char* base = static_cast<const char*>(t.storage().data()) + span.first_element * item;
  cuda::copy_bytes(host.data(), kCPU, base, t.device(), static_cast<size_t>(span.count) * item);
  return Tensor(host, t.sizes(), t.strides(), t.storage_offset() - span.first_element, t.dtype());
}

// Note [Cross-device copies]
// Contiguous same-dtype copies are one memcpy. Anything else goes through the host: the source's
// span is mirrored there (if it is on the GPU), the strided/cast copy runs on the CPU, and the
// result moves to the destination in one transfer (a non-contiguous GPU destination is mirrored,
// updated and written back). The CUDA strided-copy kernels of the next milestone replace the
// GPU-to-GPU and strided paths; this one is correct, synchronous and slow.
void copy_across(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      !std::any_of(src.strides().begin(), src.strides().end(), [](int64_t s) { return s == 0; })) {
    cuda::copy_bytes(dst.data(), dst.device(), src.data(), src.device(), dst.nbytes());
    return;
  }
  Tensor host_src = src.is_cuda() ? host_mirror(src) : src;
  if (!dst.is_cuda()) {
    cpu::copy(dst, host_src);
    return;
  }
  if (dst.is_contiguous()) {
    Tensor staged = Tensor::empty(dst.sizes(), dst.dtype(), kCPU);
    cpu::copy(staged, host_src);
    cuda::copy_bytes(dst.data(), dst.device(), staged.data(), kCPU, dst.nbytes());
    return;
  }
  Tensor mirror = host_mirror(dst);
  cpu::copy(mirror, host_src);
  Span span = span_of(dst);
  size_t item = dst.itemsize();
  char* base = static_cast<char*>(dst.storage().data()) + span.first_element * item;
  cuda::copy_bytes(base, dst.device(), mirror.storage().data(), kCPU,
                   static_cast<size_t>(span.count) * item);
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src) {
  Shape target = broadcast_shapes(dst.sizes(), src.sizes(), "copy_");
  GENESIS_CHECK_VALUE(target == dst.sizes(), "copy_", "source of shape ", shape_str(src.sizes()),
                      " cannot be broadcast to destination shape ", shape_str(dst.sizes()));
  if (dst.numel() == 0) return;
  Tensor s = src.sizes() == dst.sizes() ? src : expand(src, dst.sizes());
  if (!dst.is_cuda() && !s.is_cuda()) {
    cpu::copy(dst, s);
  } else {
    copy_across(dst, s);
  }
}

void fill_(const Tensor& dst, const Scalar& value, const char* op) {
  value.check_fits(dst.dtype(), op);
  if (dst.numel() == 0) return;
  uint64_t pattern = value.bit_pattern(dst.dtype());
  if (!dst.is_cuda()) {
    cpu::fill(dst, pattern);
  } else if (dst.is_contiguous()) {
    cuda::fill(dst.data(), dst.numel(), static_cast<int>(dst.itemsize()), pattern,
               dst.device().index);
  } else {
    Tensor dense = Tensor::empty(dst.sizes(), dst.dtype(), dst.device());
    fill_(dense, value);
    copy_(dst, dense);
  }
}

}  // namespace genesis::ops

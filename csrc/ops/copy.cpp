#include "ops/copy.h"

#include <algorithm>

#include "core/errors.h"
#include "cpu/copy.h"
#include "cuda/copy.h"
#include "cuda/fill.h"
#include "cuda/memory.h"
#include "cuda/stream.h"
#include "ops/convert.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

bool dense(const Tensor& t) {
  return t.is_contiguous() &&
         std::none_of(t.strides().begin(), t.strides().end(), [](int64_t s) { return s == 0; });
}

// One transfer of a contiguous block between devices. With non_blocking and pinned host memory
// it is queued on the CUDA side's current stream and the pinned block is marked as used there
// (so the pool does not hand it out again before the copy ran: Note [Pinned blocks wait for
// their copies] in cuda/pinned_pool.cpp); otherwise it completes first.
void transfer(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const Tensor& host = dst.is_cuda() ? src : dst;
  const Tensor& gpu = dst.is_cuda() ? dst : src;
  bool async = non_blocking && dst.device() != src.device() && !host.is_cuda() &&
               cuda::is_pinned(host.storage().data());
  if (!async) {
    cuda::copy_bytes(dst.mutable_data(), dst.device(), src.data(), src.device(), dst.nbytes());
    return;
  }
  int device = gpu.device().index;
  cuda::StreamId stream = cuda::current_stream(device);
  cuda::copy_bytes_async(dst.mutable_data(), src.data(), dst.nbytes(), stream, device);
  cuda::record_pinned_use(host.storage().data_ptr(), stream);
}

// Note [Cross-device copies]
// Casts and layout changes happen on the GPU side where one is involved; only dense bytes
// cross between devices:
//   host -> GPU:  make the source dense on the host (its own dtype), transfer, then cast and
//                 scatter into the destination's layout with the CUDA copy kernel;
//   GPU -> host:  make a dense copy with the destination's dtype on the GPU, transfer, then
//                 place it on the host if the destination is strided;
//   GPU -> GPU:   a dense copy on the source device, a peer transfer, the layout on the other.
void copy_across(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.dtype() == src.dtype() && dense(dst) && dense(src)) {
    transfer(dst, src, non_blocking);
    return;
  }
  if (!src.is_cuda()) {
    Tensor staged_host = dense(src) ? src : Tensor::empty(src.sizes(), src.dtype(), kCPU);
    if (!staged_host.is_same_view(src)) cpu::copy(staged_host, src);
    Tensor staged = Tensor::empty(src.sizes(), src.dtype(), dst.device());
    transfer(staged, staged_host, false);
    cuda::copy(dst, staged);
    return;
  }
  Tensor staged = Tensor::empty(dst.sizes(), dst.dtype(), src.device());
  cuda::copy(staged, src);
  if (!dst.is_cuda()) {
    if (dense(dst)) {
      transfer(dst, staged, non_blocking);
    } else {
      Tensor landed = Tensor::empty(dst.sizes(), dst.dtype(), kCPU);
      transfer(landed, staged, false);
      cpu::copy(dst, landed);
    }
    return;
  }
  if (dense(dst)) {
    transfer(dst, staged, false);
  } else {
    Tensor landed = Tensor::empty(dst.sizes(), dst.dtype(), dst.device());
    transfer(landed, staged, false);
    cuda::copy(dst, landed);
  }
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src, bool non_blocking) {
  check_writable(dst, "copy_");  // Note [Read-only storages]
  Shape target = broadcast_shapes(dst.sizes(), src.sizes(), "copy_");
  GENESIS_CHECK_SHAPE(target == dst.sizes(), "copy_", "source of shape ", shape_str(src.sizes()),
                      " cannot be broadcast to destination shape ", shape_str(dst.sizes()));
  if (dst.numel() == 0) return;
  // Note [Overlapping copies] in core/tensor.h.
  GENESIS_CHECK(!dst.has_shared_elements(), "copy_",
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location; clone() the tensor first");
  if (dst.is_same_view(src)) return;  // a copy onto itself changes nothing
  Tensor s = src.sizes() == dst.sizes() ? src : expand(src, dst.sizes());
  if (dst.may_overlap(s)) s = clone(s);  // read everything before writing anything
  if (!dst.is_cuda() && !s.is_cuda()) {
    cpu::copy(dst, s);
  } else if (dst.device() == s.device()) {
    cuda::copy(dst, s);
  } else {
    copy_across(dst, s, non_blocking);
  }
}

void fill_(const Tensor& dst, const Scalar& value, const char* op) {
  check_writable(dst, op);  // Note [Read-only storages]
  value.check_fits(dst.dtype(), op);
  if (dst.numel() == 0) return;
  uint64_t pattern = value.bit_pattern(dst.dtype());
  if (!dst.is_cuda()) {
    cpu::fill(dst, pattern);
  } else if (dst.is_contiguous()) {
    cuda::fill(dst.mutable_data(), dst.numel(), static_cast<int>(dst.itemsize()), pattern,
               dst.device().index);
  } else {
    // A strided destination: fill one item and let the copy kernel broadcast it.
    Tensor one = Tensor::empty({}, dst.dtype(), dst.device());
    cuda::fill(one.mutable_data(), 1, static_cast<int>(dst.itemsize()), pattern,
               dst.device().index);
    cuda::copy(dst, expand(one, dst.sizes()));
  }
}

}  // namespace genesis::ops

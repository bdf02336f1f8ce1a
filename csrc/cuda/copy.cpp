// Same-device CUDA copies: the loop planner's geometry handed to the copy kernels.
#include "kernels/copy.cuh"
#include "core/errors.h"
#include "core/loop_plan.h"
#include "cuda/backend.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"

namespace genesis::cuda {

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const Shape* strides[2] = {&dst.strides(), &src.strides()};
  int64_t items[2] = {static_cast<int64_t>(dst.itemsize()), static_cast<int64_t>(src.itemsize())};
  LoopPlan plan = plan_loop(dst.sizes(), strides, items, 2);
  if (plan.ndim() > kernels::kMaxCopyDims) {
    // More unmergeable dims than a kernel takes: one launch per index of the outermost dim.
    for (int64_t i = 0; i < dst.sizes()[0]; ++i) {
      auto drop_first = [i](const Tensor& t) {
        return t.as_strided(Shape(t.sizes().begin() + 1, t.sizes().end()),
                            Shape(t.strides().begin() + 1, t.strides().end()),
                            t.storage_offset() + i * t.strides()[0]);
      };
      copy(drop_first(dst), drop_first(src));
    }
    return;
  }
  kernels::CopyGeometry g;
  g.ndim = static_cast<int>(plan.ndim());
  for (int d = 0; d < g.ndim; ++d) {
    g.sizes[d] = plan.sizes[d];
    g.dst_strides[d] = plan.byte_strides[0][d];
    g.src_strides[d] = plan.byte_strides[1][d];
  }
  int device = dst.device().index;
  DeviceGuard guard(device);
  kernels::launch_copy(dst.data(), static_cast<int>(dst.dtype()), src.data(),
                       static_cast<int>(src.dtype()), plan.numel, g,
                       reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

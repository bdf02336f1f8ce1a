#include "cuda/reduce.h"

#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "kernels/reduce.cuh"

namespace genesis::cuda {

void reduce(ops::ReduceOp op, const Tensor& in, const ops::ReduceShape& shape, const Tensor& out,
            const Tensor& index, const Tensor& center, const ops::ReduceFinish& finish,
            const Tensor& maxs) {
  if (shape.outputs() == 0) return;
  int device = in.device().index;
  DeviceGuard guard(device);
  kernels::ReduceLaunch l;
  l.op = op;
  l.dtype = static_cast<int>(in.dtype());
  l.in = in.data();
  l.out = out.defined() ? out.mutable_data() : nullptr;
  l.out_max = maxs.defined() ? maxs.mutable_data() : nullptr;
  l.out_index = index.defined() ? index.mutable_data_as<int64_t>() : nullptr;
  l.center = center.defined() ? center.data() : nullptr;
  l.shape = shape;
  l.finish = finish;
  l.item_bytes = static_cast<int64_t>(in.itemsize());
  l.programmatic_final = compute_capability_major(device) >= 9;
  size_t workspace_bytes = kernels::plan_reduce(l, multiprocessor_count(device));
  Tensor workspace;  // freed after the launch: the pool reuses it only in this stream's order
  if (workspace_bytes > 0) {
    workspace =
        Tensor::empty({static_cast<int64_t>(workspace_bytes)}, ScalarType::UInt8, in.device());
    l.workspace = workspace.mutable_data();
  }
  kernels::launch_reduce(l, reinterpret_cast<void*>(current_stream(device)));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace genesis::cuda

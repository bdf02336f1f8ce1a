// The CUDA side of the advanced index plans: geometry from the loop planner, kernels from
// kernels/index.cu.
#include "cuda/index.h"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <mutex>

#include "core/caller_lock.h"
#include "core/errors.h"
#include "core/index_check.h"
#include "core/loop_plan.h"
#include "core/sync_debug.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/geometry.h"
#include "cuda/index_errors.h"
#include "cuda/stream.h"
#include "kernels/index.cuh"

namespace genesis::cuda {

namespace {

char* ptr(const Tensor& t) { return static_cast<char*>(t.mutable_data()); }
// Operands only read: no write version counted (Note [Write versions]).
const char* read_ptr(const Tensor& t) { return static_cast<const char*>(t.data()); }

std::atomic<int64_t> check_waits{0};
void* stream_of(const Tensor& t) {
  return reinterpret_cast<void*>(current_stream(t.device().index));
}

// Counts a contiguous mask's true elements on the device; `block_offsets` receives each block's
// output offset for the compaction kernels. Returns the total: the one
// wait of a mask getitem.
int64_t count_mask(const Tensor& mask, Tensor* block_offsets) {
  int64_t n = mask.numel();
  int64_t blocks = kernels::nonzero_blocks(n);
  *block_offsets =
      Tensor::empty({kernels::nonzero_count_slots(n)}, ScalarType::Int64, mask.device());
  int64_t* counts = block_offsets->mutable_data_as<int64_t>();
  void* stream = stream_of(mask);
  kernels::launch_nonzero_count(mask.data_as<bool>(), n, counts, stream);
  GENESIS_CUDA_CHECK(cudaGetLastError());
  int64_t count = 0;
  note_implicit_sync("mask count", mask.device().index);  // Note [Sync debug mode]
  {
    UnlockedRegion unlocked;  // Note [Releasing the caller's lock]
    GENESIS_CUDA_CHECK(cudaMemcpyAsync(&count, counts + blocks, sizeof(count),
                                       cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(stream)));
    GENESIS_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }
  raise_index_error(mask.device().index, "mask count");  // Note [Deferred index errors]
  return count;
}

}  // namespace

void add_index_offsets(const Tensor& offsets, const Tensor& index, int64_t size,
                       int64_t byte_stride, int64_t dim, bool assign, unsigned seq) {
  if (offsets.numel() == 0) return;
  int device = offsets.device().index;
  DeviceGuard guard(device);
  kernels::IndexSite error = index_site(device, seq);
  for_each_geometry(plan_operands(offsets, {&offsets, &index}),
                    {written_base(offsets), read_base(index)},
                    [&](const kernels::Geometry& g, const KernelBases& b) {
                      kernels::launch_add_index_offsets(b[0], b[1], g.numel, g, size, byte_stride,
                                                        dim, assign, error, stream_of(offsets));
                    });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

bool check_index_offsets(const Tensor& offsets) {
  if (index_check_mode() == IndexCheckMode::Deferred) return false;  // Note [Deferred index errors]
  int device = offsets.device().index;
  DeviceGuard guard(device);
  auto stream = reinterpret_cast<cudaStream_t>(current_stream(device));
  note_implicit_sync("index bounds check", device);  // Note [Sync debug mode]
  {
    UnlockedRegion unlocked;  // Note [Releasing the caller's lock]
    GENESIS_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  check_waits.fetch_add(1, std::memory_order_relaxed);
  raise_index_error(device, nullptr);
  return true;
}

void gather(const Tensor& out, const Tensor& src, const Tensor& offsets) {
  DeviceGuard guard(out.device().index);
  for_each_geometry(plan_operands(out, {&out, &src, &offsets}),
                    {written_base(out), read_base(src), read_base(offsets)},
                    [&](const kernels::Geometry& g, const KernelBases& b) {
                      kernels::launch_gather(b[0], b[1], b[2], g.numel, g,
                                             static_cast<int>(out.itemsize()), stream_of(out));
                    });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void gather_index(const Tensor& out, const Tensor& src, const Tensor& index, int64_t size,
                  int64_t byte_stride, int64_t dim) {
  int device = out.device().index;
  DeviceGuard guard(device);
  kernels::IndexSite error = index_site(device);
  for_each_geometry(plan_operands(out, {&out, &src, &index}),
                    {written_base(out), read_base(src), read_base(index)},
                    [&](const kernels::Geometry& g, const KernelBases& b) {
                      kernels::launch_gather_index(b[0], b[1], b[2], g.numel, g,
                                                   static_cast<int>(out.itemsize()), size,
                                                   byte_stride, dim, error, stream_of(out), device);
                    });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

bool gather_last(const Tensor& out, const Tensor& src, const Tensor& index) {
  int device = out.device().index;
  DeviceGuard guard(device);
  int64_t dim = src.ndim() - 1;
  bool launched = kernels::launch_gather_last(
      static_cast<char*>(out.mutable_data()), static_cast<const char*>(src.data()),
      index.data_as<int64_t>(), index.numel(), index.sizes()[dim], src.sizes()[dim],
      src.sizes()[dim], static_cast<int>(src.itemsize()), dim, index_site(device), stream_of(out));
  GENESIS_CUDA_CHECK(cudaGetLastError());
  return launched;
}

void gather_rows(const Tensor& out, const Tensor& src, const Tensor& index, int64_t size) {
  int device = out.device().index;
  DeviceGuard guard(device);
  int64_t rows = index.numel();
  if (rows == 0 || out.numel() == 0) return;
  int64_t row_bytes = out.numel() / rows * static_cast<int64_t>(out.itemsize());
  kernels::launch_gather_rows(static_cast<char*>(out.mutable_data()),
                              static_cast<const char*>(src.data()), index.data_as<int64_t>(), rows,
                              row_bytes, src.strides()[0] * static_cast<int64_t>(src.itemsize()),
                              size, index_site(device), stream_of(out));
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void scatter_index(const Tensor& dst, const Tensor& values, const Tensor& index_view,
                   const Tensor& index, int64_t size, int64_t byte_stride, int64_t dim, bool check,
                   ops::ScatterReduce reduce) {
  int device = dst.device().index;
  DeviceGuard guard(device);
  // Both plans first: nothing may raise between a check that records an error and the
  // check_index_offsets that clears it.
  check = check && index.numel() > 0;
  bool write = values.numel() > 0;
  LoopPlan check_plan, write_plan;
  if (check) check_plan = plan_operands(index, {&index});
  if (write) write_plan = plan_operands(values, {&values, &dst, &index_view});
  kernels::IndexSite error = index_site(device);
  void* stream = stream_of(dst);
  if (check)
    for_each_geometry(check_plan, {read_base(index)},
                      [&](const kernels::Geometry& g, const KernelBases& b) {
                        kernels::launch_check_index(b[0], g.numel, g, size, dim, error, stream);
                      });
  if (write)
    for_each_geometry(write_plan, {read_base(values), written_base(dst), read_base(index_view)},
                      [&](const kernels::Geometry& g, const KernelBases& b) {
                        if (reduce == ops::ScatterReduce::None)
                          kernels::launch_scatter_index(b[0], b[1], b[2], g.numel, g,
                                                        static_cast<int>(dst.itemsize()), size,
                                                        byte_stride, error, stream);
                        else
                          kernels::launch_scatter_reduce(
                              b[0], b[1], b[2], g.numel, g, static_cast<int>(dst.dtype()), reduce,
                              /*by_index=*/true, size, byte_stride, error, stream);
                      });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

int64_t index_check_waits() { return check_waits.load(std::memory_order_relaxed); }

Tensor masked_select(const Tensor& src, const Tensor& mask) {
  Device device = src.device();
  DeviceGuard guard(device.index);
  if (mask.numel() == 0) return Tensor::empty({0}, src.dtype(), device);  // nothing to count
  Tensor offsets;
  int64_t count = count_mask(mask, &offsets);
  Tensor out = Tensor::empty({count}, src.dtype(), device);
  if (count > 0)
    kernels::launch_select(mask.data_as<bool>(), read_ptr(src), mask.numel(),
                           offsets.data_as<int64_t>(), ptr(out), static_cast<int>(src.itemsize()),
                           stream_of(src));
  GENESIS_CUDA_CHECK(cudaGetLastError());
  return out;
}

void scatter(const Tensor& dst, const Tensor& offsets, const Tensor& values,
             ops::ScatterReduce reduce, unsigned seq) {
  int device = dst.device().index;
  DeviceGuard guard(device);
  kernels::IndexSite error = index_site(device, seq);  // only read: Note [Poisoned offsets]
  for_each_geometry(plan_operands(values, {&values, &dst, &offsets}),
                    {read_base(values), written_base(dst), read_base(offsets)},
                    [&](const kernels::Geometry& g, const KernelBases& b) {
                      if (reduce == ops::ScatterReduce::None)
                        kernels::launch_scatter(b[0], b[1], b[2], g.numel, g,
                                                static_cast<int>(dst.itemsize()), error,
                                                stream_of(dst));
                      else
                        kernels::launch_scatter_reduce(
                            b[0], b[1], b[2], g.numel, g, static_cast<int>(dst.dtype()), reduce,
                            /*by_index=*/false, 0, 0, error, stream_of(dst));
                    });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

void masked_fill(const Tensor& dst, const Tensor& mask, uint64_t pattern) {
  if (dst.numel() == 0) return;
  DeviceGuard guard(dst.device().index);
  for_each_geometry(plan_operands(dst, {&dst, &mask}), {written_base(dst), read_base(mask)},
                    [&](const kernels::Geometry& g, const KernelBases& b) {
                      kernels::launch_masked_fill(b[0], b[1], g.numel, g,
                                                  static_cast<int>(dst.itemsize()), pattern,
                                                  stream_of(dst));
                    });
  GENESIS_CUDA_CHECK(cudaGetLastError());
}

std::vector<Tensor> nonzero(const Tensor& mask) {
  GENESIS_CHECK(mask.ndim() <= kernels::kMaxKernelDims, "index", "boolean masks of more than ",
                kernels::kMaxKernelDims, " dims are not supported on CUDA");
  GENESIS_CHECK(mask.is_contiguous() && mask.dtype() == ScalarType::Bool, "index",
                "nonzero expects a contiguous bool mask");
  Device device = mask.device();
  DeviceGuard guard(device.index);
  int ndim = static_cast<int>(mask.ndim());
  void* stream = stream_of(mask);
  // Note [Positions of a 1-d mask]: a 1-d mask's positions are the select of x[mask] with the
  // positions for values (no values read): the mask is read twice (count, write) and the
  // positions written once, staged per tile in shared memory so the stores are contiguous.
  // CUB's flagged select over a counting iterator, used before, needs no count pass but ran at
  // 1.6 TB/s (0.96-0.99x torch's, which also counts first).
  Tensor offsets;
  int64_t count = count_mask(mask, &offsets);
  Tensor coords = Tensor::empty({count, ndim}, ScalarType::Int64, device);
  if (count > 0 && ndim == 1)
    kernels::launch_select_positions(mask.data_as<bool>(), mask.numel(), offsets.data_as<int64_t>(),
                                     coords.mutable_data_as<int64_t>(), stream);
  else if (count > 0)
    kernels::launch_nonzero_write(mask.data_as<bool>(), mask.numel(), offsets.data_as<int64_t>(),
                                  ndim, mask.sizes().data(), coords.mutable_data_as<int64_t>(),
                                  count, stream);
  GENESIS_CUDA_CHECK(cudaGetLastError());
  std::vector<Tensor> out;
  // Columns of one [count, ndim] tensor: nonzero()'s result is that tensor, not a stack.
  for (int d = 0; d < ndim; ++d) out.push_back(coords.as_strided({count}, {ndim}, d));
  return out;
}

}  // namespace genesis::cuda

#pragma once
// The advanced-index loops on CUDA devices (csrc/cpu/index.h documents each; kernels/index.cuh;
// Note [CUDA backend layout] in cuda/runtime.h). All run on the current stream.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "vocab/scatter_reduce.h"

namespace genesis::cuda {

// add_index_offsets records an out-of-range index on the device (it then adds 0, so gathers stay
// in bounds). check_index_offsets does nothing under the deferred index check (the error is
// raised at the device's next wait, Note [Deferred index errors] in core/index_check.h) and
// returns false; under the immediate one it waits for the stream, raises IndexError for the
// first error recorded, and returns true (every index seen was in range). `seq` (0: a fresh one,
// next_index_seq() in cuda/index_errors.h) ties the checks to the scatter that uses the offsets.
void add_index_offsets(const Tensor& offsets, const Tensor& index, int64_t size,
                       int64_t byte_stride, int64_t dim, bool assign, unsigned seq = 0);
bool check_index_offsets(const Tensor& offsets);
void gather(const Tensor& out, const Tensor& src, const Tensor& offsets);
// With an accumulating `reduce`, values combine into dst atomically (Note [Accumulating
// scatters] in vocab/scatter_reduce.h). Poisoned offsets are skipped (Note [Poisoned offsets]
// in kernels/index_loops.cuh), and nothing is written when the offsets' add_index_offsets of
// the same nonzero `seq` recorded the device's error.
void scatter(const Tensor& dst, const Tensor& offsets, const Tensor& values,
             ops::ScatterReduce reduce = ops::ScatterReduce::None, unsigned seq = 0);
// out(i) = src(i) at index(i) along one dim of `byte_stride`, checked like add_index_offsets
// (check_index_offsets raises afterwards); no offsets tensor in between.
void gather_index(const Tensor& out, const Tensor& src, const Tensor& index, int64_t size,
                  int64_t byte_stride, int64_t dim);
// out[r] = src[index[r]] for the dense rows of a contiguous `out` and of `src` (its first dim
// `size` rows apart, the rest dense), through a contiguous int64 `index` of out.size(0) items,
// checked like gather_index (Note [Row gathers] in kernels/index.cu).
void gather_rows(const Tensor& out, const Tensor& src, const Tensor& index, int64_t size);
// torch.gather along the last dim when src, index and out are contiguous: false (nothing done)
// when the vector kernel cannot take them (see kernels::launch_gather_last).
bool gather_last(const Tensor& out, const Tensor& src, const Tensor& index);
// dst(i) at index_view(i) along one dim of `byte_stride` = values(i), index_view being `index`
// seen with values' shape: with `check`, one kernel checks every element of `index` like
// add_index_offsets; a second scatters, writing nothing when this check recorded an out-of-range
// index (and skipping such indices in any case); the caller then calls check_index_offsets, and
// the IndexError, raised there or at the next wait, leaves dst unchanged (Note [Fused scatter]).
// With an accumulating `reduce`, the values combine into dst as in scatter.
void scatter_index(const Tensor& dst, const Tensor& values, const Tensor& index_view,
                   const Tensor& index, int64_t size, int64_t byte_stride, int64_t dim, bool check,
                   ops::ScatterReduce reduce = ops::ScatterReduce::None);
// How many times check_index_offsets has waited for a device (immediate checks only) (for tests of
// Note [Validated index memo]).
int64_t index_check_waits();
// The elements of a contiguous src where a contiguous mask of the same shape is true, in
// row-major order (one wait, for the count).
Tensor masked_select(const Tensor& src, const Tensor& mask);
void masked_fill(const Tensor& dst, const Tensor& mask, uint64_t pattern);
// The coordinates of a contiguous bool mask's true elements, one int64 tensor per dim: counts on
// the device, waits once for the count, then compacts in row-major order.
std::vector<Tensor> nonzero(const Tensor& mask);

}  // namespace genesis::cuda

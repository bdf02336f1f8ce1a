#pragma once
// Host launchers for the advanced-index kernels (index.cu). Geometries come from the loop
// planner (Note [Kernel geometry]): innermost dim first, byte strides per operand.
#include <cstdint>

#include "kernels/geometry.h"
#include "vocab/scatter_reduce.h"

namespace genesis::kernels {

// Where an out-of-range index is recorded on the device (first one wins), and the mapped pinned
// host copy that the winning thread fills for the host to read after its waits (Note [Deferred
// index errors] in core/index_check.h).
struct IndexError {
  int flag;
  int op;        // index_op_code of the op's name (core/index_check.h)
  unsigned seq;  // the recording launch's IndexSite::seq
  int64_t value, dim, size;
};

// What a checking kernel needs: the device's record and its host copy (a device address of
// mapped pinned memory), the op to name, and the launch's sequence number (a checked scatter
// writes nothing when the recorded error carries its own).
struct IndexSite {
  IndexError* record;
  IndexError* mirror;
  int op;
  unsigned seq;
};

// Operand 0: int64 offsets (+=, or = when `assign`), operand 1: int64 indices. An index out of
// range is recorded in `error` and poisons its element's offset, which launch_gather reads as 0
// and launch_scatter / launch_scatter_reduce skip (Note [Poisoned offsets] in index_loops.cuh).
void launch_add_index_offsets(char* offsets, const char* index, int64_t numel, const Geometry& g,
                              int64_t size, int64_t byte_stride, int64_t dim, bool assign,
                              IndexSite error, void* stream);
// Operands: out, src, int64 offsets. out(i) = *(src(i) + offsets(i)); items of `itemsize` bytes.
void launch_gather(char* out, const char* src, const char* offsets, int64_t numel,
                   const Geometry& g, int itemsize, void* stream);
// Operands: out, src, int64 index. out(i) = *(src(i) + wrap(index(i)) * byte_stride), with
// out-of-range indices recorded in `error` (and read as 0). `device` is the current device, for
// the driver launch (Note [Driver launches]).
void launch_gather_index(char* out, const char* src, const char* index, int64_t numel,
                         const Geometry& g, int itemsize, int64_t size, int64_t byte_stride,
                         int64_t dim, IndexSite error, void* stream, int device);
// torch.gather along the last dim of a contiguous src (rows of `src_row_items` items, `size` of
// them addressable) through a contiguous int64 index of `numel` items in rows of `cols` (out is
// contiguous like index). Returns false, launching nothing, unless cols is a multiple of 4 and
// index (16 bytes) and out (4 items) are aligned for its vector loads and stores.
bool launch_gather_last(char* out, const char* src, const int64_t* index, int64_t numel,
                        int64_t cols, int64_t src_row_items, int64_t size, int itemsize,
                        int64_t dim, IndexSite error, void* stream);
// Dense rows of `row_bytes` (Note [Row gathers]): out row r = src row wrap(index[r]) of a dim of
// `size` rows `src_row_bytes` apart; out-of-range indices recorded in `error` (and read as 0).
void launch_gather_rows(char* out, const char* src, const int64_t* index, int64_t rows,
                        int64_t row_bytes, int64_t src_row_bytes, int64_t size, IndexSite error,
                        void* stream);
// Operands: values, dst, int64 offsets. *(dst(i) + offsets(i)) = values(i), poisoned offsets
// skipped, and nothing written when `error` records an error of its own sequence number.
void launch_scatter(const char* values, char* dst, const char* offsets, int64_t numel,
                    const Geometry& g, int itemsize, IndexSite error, void* stream);
// Records the first out-of-range value of an int64 index tensor (one operand) like
// add_index_offsets, writing nothing else (Note [Fused scatter] in index.cu).
void launch_check_index(const char* index, int64_t numel, const Geometry& g, int64_t size,
                        int64_t dim, IndexSite error, void* stream);
// Operands: values, dst, int64 index. *(dst(i) + wrap(index(i)) * byte_stride) = values(i), and
// nothing at all written when `error` already records an out-of-range index.
void launch_scatter_index(const char* values, char* dst, const char* index, int64_t numel,
                          const Geometry& g, int itemsize, int64_t size, int64_t byte_stride,
                          IndexSite error, void* stream);
// The accumulating scatter (index_reduce.cu, Note [Accumulating scatters] in
// vocab/scatter_reduce.h). Operands: values, dst, and `where`: int64 byte offsets, or with
// `by_index` one int64 index along a dim of `size` elements `byte_stride` apart (wrapped; out of
// range skipped); poisoned offsets skipped, and nothing written when `error` records an error of
// its own sequence number, as launch_scatter_index.
// *(dst(i) + offset(i)) = combine(itself, values(i)), atomically; `dtype` is a DtypeCode.
void launch_scatter_reduce(const char* values, char* dst, const char* where, int64_t numel,
                           const Geometry& g, int dtype, ops::ScatterReduce reduce, bool by_index,
                           int64_t size, int64_t byte_stride, IndexSite error, void* stream);
// Operands: dst, bool mask. dst(i) = pattern where mask(i).
void launch_masked_fill(char* dst, const char* mask, int64_t numel, const Geometry& g, int itemsize,
                        uint64_t pattern, void* stream);

// Note [Mask compaction]: nonzero and x[mask] over a contiguous bool mask of n elements keep
// row-major order in three steps. (1) Counting, per tile of 4096 elements: a block counts 8
// tiles (16 mask bytes a thread and tile, one vector load when aligned; a byte counts when
// nonzero), writing each tile's count and the 8 tiles' sum; one block scans those sums (also
// giving the total, which the host waits for once, to size the result) and a wide kernel turns
// them into tile offsets. (2) Writing, one block a tile: coordinates for nonzero; for x[mask],
// each thread owns 4 groups of 4 elements laid out so that a warp's 4-byte mask loads and
// vector value loads are contiguous (scalar loads when the pointers are not aligned), the block
// scans its group counts in one pass (four 16-bit counts packed in a 64-bit sum), stages the
// selected values in shared memory and writes them out contiguously. So the mask is read twice
// and the values once (groups without a set byte are skipped), and the result written once:
// for 2^28 float32 at density 0.5 on an H200, about 80 us counting and 470 us writing.
// `slots` needs nonzero_count_slots(n) int64s: it receives the nonzero_blocks(n) tile offsets
// (the `block_offsets` below), then the total, then scratch.
int64_t nonzero_blocks(int64_t n);
int64_t nonzero_count_slots(int64_t n);
void launch_nonzero_count(const bool* mask, int64_t n, int64_t* slots, void* stream);
// coords: ndim columns of int64, column d at coords + d * count; sizes: the mask's shape.
void launch_nonzero_write(const bool* mask, int64_t n, const int64_t* block_offsets, int ndim,
                          const int64_t* sizes, int64_t* coords, int64_t count, void* stream);

// After launch_nonzero_count over a contiguous mask: out[k] = i for the k-th true mask[i], the
// positions of a 1-d nonzero (the select below with the positions for values).
void launch_select_positions(const bool* mask, int64_t n, const int64_t* block_offsets,
                             int64_t* out, void* stream);

// After launch_nonzero_count over a contiguous mask: out[k] = src[i] for the k-th true mask[i]
// (src contiguous, same length as the mask).
void launch_select(const bool* mask, const char* src, int64_t n, const int64_t* block_offsets,
                   char* out, int itemsize, void* stream);

}  // namespace genesis::kernels

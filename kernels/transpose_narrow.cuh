#pragma once
// Note [Narrow transposes]
// The tiles of Note [Tiled transposes] are 128 rows by 128 bytes; a transpose with a narrow side
// fills a sliver of each: HWC -> CHW images (3 rows of a tile used, 181 GB/s for uint8 on an
// H200 where PyTorch moved 780), a batch of 8 x 8 matrices (144 GB/s). When the narrow side's
// items are packed, whole spans of memory are contiguous on one or both sides, so a block of 256
// threads stages up to 8 KiB in shared memory, read and written in order where memory is
// contiguous:
//  - small matrices (R x C x E <= 8 KiB, both sides packed, one batch dim of packed matrices):
//    a block moves whole matrices, its span contiguous on both sides;
//  - narrow rows (R x E <= 64 bytes, src columns packed): a block moves a span of columns, one
//    contiguous run of src and R runs of dst;
//  - narrow columns (C x E <= 64 bytes, dst rows packed): the mirror image.
// The staged items sit P = R (or C) rounded up to odd apart, so threads walking the transposed
// order touch different banks. Each thread has one load in flight at a time: a version that
// issued eight before staging any was faster for float32 HWC -> CHW (45 -> 37 us) and slower
// for uint8 CHW -> HWC (24 -> 60 us, two divisions an item); it was not kept (its tested state
// was not the one committed; benchmarks/results/2026-11-29-session14.txt). dst[b][r][c] =
// src[b][c][r] as in TransposeTilesArgs (src dense along r, dst along c).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/transpose_tiles.cuh"

namespace genesis::kernels {

constexpr int kNarrowThreads = 256;
constexpr int kNarrowBytes = 8192;  // staged a block
constexpr int kNarrowSide = 64;     // the most bytes of a narrow row or column

__host__ __device__ inline int64_t odd_pitch(int64_t n) { return n | 1; }

// Whole matrices: matrix m of the launch's `count` starts at m * R * C items on both sides.
template <int E>
__global__ void __launch_bounds__(kNarrowThreads)
    transpose_small_matrices(TransposeTilesArgs a, int64_t count, int per_block) {
  using T = typename Item<E>::type;
  __shared__ T stage[kNarrowBytes / E];
  const int R = static_cast<int>(a.rows), C = static_cast<int>(a.cols);
  const int P = static_cast<int>(odd_pitch(R)), N = R * C;
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * per_block;
  const int m_count = static_cast<int>(count - m0 < per_block ? count - m0 : per_block);
  const int n = m_count * N;
  const T* src = reinterpret_cast<const T*>(a.src) + m0 * N;
  T* dst = reinterpret_cast<T*>(a.dst) + m0 * N;
  for (int i = threadIdx.x; i < n; i += kNarrowThreads) {  // i = (m * C + c) * R + r
    int col = i / R, r = i - col * R;
    stage[col * P + r] = src[i];
  }
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += kNarrowThreads) {  // j = (m * R + r) * C + c
    int m = j / N, rem = j - m * N, r = rem / C, c = rem - r * C;
    dst[j] = stage[(m * C + c) * P + r];
  }
}

// Narrow rows: a span of `span` columns c0.. of one batch entry; src holds them as one run.
template <int E>
__global__ void __launch_bounds__(kNarrowThreads)
    transpose_narrow_rows(TransposeTilesArgs a, int64_t span) {
  using T = typename Item<E>::type;
  __shared__ T stage[kNarrowBytes / E];
  const int R = static_cast<int>(a.rows), P = static_cast<int>(odd_pitch(R));
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * span;
  int64_t src_off = c0 * a.src_col, dst_off = c0 * E;
  add_batch_offsets(a, src_off, dst_off);
  const int k_count = static_cast<int>(a.cols - c0 < span ? a.cols - c0 : span);
  const T* src = reinterpret_cast<const T*>(a.src + src_off);
  for (int i = threadIdx.x; i < k_count * R; i += kNarrowThreads) {  // i = k * R + r
    int k = i / R, r = i - k * R;
    stage[k * P + r] = src[i];
  }
  __syncthreads();
  for (int r = 0; r < R; ++r) {
    T* row = reinterpret_cast<T*>(a.dst + dst_off + r * a.dst_row);
    for (int k = threadIdx.x; k < k_count; k += kNarrowThreads) row[k] = stage[k * P + r];
  }
}

// Narrow columns: a span of `span` rows r0.. of one batch entry; dst holds them as one run.
template <int E>
__global__ void __launch_bounds__(kNarrowThreads)
    transpose_narrow_cols(TransposeTilesArgs a, int64_t span) {
  using T = typename Item<E>::type;
  __shared__ T stage[kNarrowBytes / E];
  const int C = static_cast<int>(a.cols), P = static_cast<int>(odd_pitch(C));
  const int64_t r0 = static_cast<int64_t>(blockIdx.x) * span;
  int64_t src_off = r0 * E, dst_off = r0 * a.dst_row;
  add_batch_offsets(a, src_off, dst_off);
  const int k_count = static_cast<int>(a.rows - r0 < span ? a.rows - r0 : span);
  for (int c = 0; c < C; ++c) {
    const T* col = reinterpret_cast<const T*>(a.src + src_off + c * a.src_col);
    for (int k = threadIdx.x; k < k_count; k += kNarrowThreads) stage[k * P + c] = col[k];
  }
  __syncthreads();
  T* dst = reinterpret_cast<T*>(a.dst + dst_off);
  for (int i = threadIdx.x; i < k_count * C; i += kNarrowThreads) {  // i = k * C + c
    int k = i / C, c = i - k * C;
    dst[i] = stage[k * P + c];
  }
}

// Runs a planned batch of transposes (plan_transpose_tiles) through one of the kernels above
// when it has a narrow side with packed items; false (nothing launched) otherwise.
template <int E>
bool try_narrow_transpose(TransposeTilesArgs a, int64_t batches, cudaStream_t stream) {
  const int64_t R = a.rows, C = a.cols;
  const bool src_packed = a.src_col == R * E, dst_packed = a.dst_row == C * E;
  const int64_t matrix_bytes = C * odd_pitch(R) * E;
  if (src_packed && dst_packed && matrix_bytes <= kNarrowBytes &&
      (a.nbatch == 0 ||
       (a.nbatch == 1 && a.src_batch[0] == R * C * E && a.dst_batch[0] == R * C * E))) {
    const int per_block = static_cast<int>(kNarrowBytes / matrix_bytes);
    // At most 2^31 - 1 blocks a launch.
    const int64_t most = int64_t{0x7fffffff} * per_block;
    for (int64_t m0 = 0; m0 < batches; m0 += most) {
      TransposeTilesArgs part = a;
      part.src += m0 * R * C * E;
      part.dst += m0 * R * C * E;
      const int64_t count = batches - m0 < most ? batches - m0 : most;
      const auto blocks = static_cast<unsigned>((count + per_block - 1) / per_block);
      transpose_small_matrices<E><<<blocks, kNarrowThreads, 0, stream>>>(part, count, per_block);
    }
    return true;
  }
  const bool rows_narrow = src_packed && R * E <= kNarrowSide;
  const bool cols_narrow = dst_packed && C * E <= kNarrowSide;
  if (!rows_narrow && !cols_narrow) return false;
  const int64_t long_side = rows_narrow ? C : R;
  const int64_t span = kNarrowBytes / (odd_pitch(rows_narrow ? R : C) * E);
  const int64_t spans = (long_side + span - 1) / span;
  if (spans > 0x7fffffff) return false;
  for (int64_t b0 = 0; b0 < batches; b0 += 65535) {
    a.batch0 = b0;
    const dim3 grid(static_cast<unsigned>(spans),
                    static_cast<unsigned>(batches - b0 < 65535 ? batches - b0 : 65535));
    if (rows_narrow)
      transpose_narrow_rows<E><<<grid, kNarrowThreads, 0, stream>>>(a, span);
    else
      transpose_narrow_cols<E><<<grid, kNarrowThreads, 0, stream>>>(a, span);
  }
  return true;
}

}  // namespace genesis::kernels

#pragma once
// Note [Tiled transposes]
// A same-dtype copy whose destination is dense along one dim (c) while the source is dense along
// another (r) is a batch of matrix transposes: dst[b][r][c] = src[b][c][r]. A naive loop makes
// one side's accesses strided; a tile staged in shared memory makes both sides move whole
// 128-byte lines, and here every thread moves 16-byte vectors on both sides, for every element
// size E (1, 2, 4, 8 bytes):
//  - A tile is 128 dst rows by 128 dst bytes (128/E cols), 16 KiB for every dtype, one tile per
//    block of 256 threads; each thread loads four 16-byte vectors, all issued before the first
//    is used, and stores four.
//  - Load: a thread takes k consecutive src columns (k = 4/E for E < 4, else 1) and one 16-byte
//    vector of each (16/E consecutive rows). That is (16/E)/k blocks of k x k elements, each k
//    words of 4 bytes (8 for E = 8); a block is transposed in registers (__byte_perm for 1 and 2
//    bytes), which gives 16/E words of dst rows, k elements each, stored one word each into the
//    tile. Eight neighbouring threads read 128 consecutive bytes of one src column.
//  - Store: the tile holds dst rows in dst's byte order, so a thread reads 16 bytes of one row
//    and stores them as one vector; eight neighbouring threads store one 128-byte dst line.
//  - Banks: the tile has no padding (a row is exactly the 32 banks); the 16-byte groups of row r
//    are XOR-swizzled with (r / (16/E)) % 8, the index of r's src vector. A warp's word stores
//    (8 vectors down a column x 4 word columns) then hit 32 different banks, and a quarter
//    warp's 16-byte loads (one row, its 8 groups permuted) too: no conflicts on either side.
//  - Alignment: vectors need the src columns (base, column and batch strides) 16-byte aligned
//    for the loads and the dst rows likewise for the stores; each side that is not (odd sizes,
//    offsets into a row) moves its 16 bytes as 16/E items instead, the tile and its banks the
//    same. Tiles at the right and bottom edges go item by item (with bounds checks) wherever a
//    16-byte vector or a k-column block would cross the edge.
//  - Grid: blockIdx.x enumerates the tiles of one matrix (columns fastest, so neighbouring blocks
//    write neighbouring dst bytes), blockIdx.y the batch (launches of at most 65535 matrices);
//    the batch dims are every dim of the plan besides r and c, unravelled once per block. Byte
//    offsets are 64-bit per block and column, 32-bit inside a tile.
// One __syncthreads separates the tile's writes from its reads; a block handles one tile, so no
// second barrier is needed. tools/transpose_sim runs this kernel on the host (no GPU needed) over
// the edge cases and counts its bank wavefronts; run it after changing anything here.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/geometry.h"

namespace genesis::kernels {

constexpr int kTileRows = 128;      // dst rows of a tile (src's dense dim)
constexpr int kTileRowBytes = 128;  // dst bytes of a tile row: one line
constexpr int kTileThreads = 256;
constexpr int kMaxTileBatchDims = kMaxKernelDims - 2;

// The geometry of a tile for items of E bytes.
template <int E>
struct TileShape {
  static constexpr int kCols = kTileRowBytes / E;   // dst cols of a tile
  static constexpr int kBlock = E < 4 ? 4 / E : 1;  // edge of a register-transposed block
  static constexpr int kVecRows = 16 / E;           // src rows in a 16-byte vector
  static constexpr int kWordCols = kCols / kBlock;  // block columns of a tile (32, or 16)
  static constexpr int kLoadUnits = (kTileRows / kVecRows) * kWordCols / kTileThreads;
  static constexpr int kStoreUnits = kTileRows * (kTileRowBytes / 16) / kTileThreads;
  static_assert(kLoadUnits * kBlock == 4 && kStoreUnits == 4, "four vectors a thread");
};

// A batch of transposes: dst[b][r][c] = src[b][c][r], dst dense along c and src along r; byte
// strides. The batch dims are the plan's dims besides r and c, innermost first.
struct TransposeTilesArgs {
  char* dst = nullptr;
  const char* src = nullptr;
  int64_t rows = 0, cols = 0;        // dst rows (src's dense dim), dst cols (dst's dense dim)
  int64_t dst_row = 0, src_col = 0;  // dst's stride along r, src's along c
  uint32_t tiles_c = 0;              // tiles along c: blockIdx.x = tile_r * tiles_c + tile_c
  int nbatch = 0;
  int64_t batch_sizes[kMaxTileBatchDims] = {};
  int64_t dst_batch[kMaxTileBatchDims] = {};
  int64_t src_batch[kMaxTileBatchDims] = {};
  int64_t batch0 = 0;  // the batch index of blockIdx.y == 0
};

// Fills `a` for a same-dtype copy of E-byte items with geometry `g` (operand 0 dst, operand 1
// src) when it is a batch of transposes that the tiles can run; false otherwise. `batches` gets
// the number of matrices.
inline bool plan_transpose_tiles(const Geometry& g, int E, void* dst, const void* src,
                                 TransposeTilesArgs* a, int64_t* batches) {
  if (g.ndim < 2 || g.strides[0][0] != E || g.strides[1][0] == E) return false;
  int d = 1;  // the dim along which src is dense
  while (d < g.ndim && g.strides[1][d] != E) ++d;
  if (d == g.ndim) return false;
  TransposeTilesArgs out;
  out.dst = static_cast<char*>(dst);
  out.src = static_cast<const char*>(src);
  out.rows = g.sizes[d];
  out.cols = g.sizes[0];
  out.dst_row = g.strides[0][d];
  out.src_col = g.strides[1][0];
  int64_t cols_per_tile = kTileRowBytes / E;
  int64_t tiles_r = (out.rows + kTileRows - 1) / kTileRows;
  int64_t tiles_c = (out.cols + cols_per_tile - 1) / cols_per_tile;
  if (tiles_r * tiles_c > INT32_MAX) return false;
  out.tiles_c = static_cast<uint32_t>(tiles_c);
  int64_t n = 1;
  for (int k = 1; k < g.ndim; ++k) {
    if (k == d) continue;
    out.batch_sizes[out.nbatch] = g.sizes[k];
    out.dst_batch[out.nbatch] = g.strides[0][k];
    out.src_batch[out.nbatch] = g.strides[1][k];
    n *= g.sizes[k];
    ++out.nbatch;
  }
  *a = out;
  *batches = n;
  return true;
}

// Whether a side can move 16-byte vectors: its base and every stride that moves between its
// vectors are multiples of 16 (the offsets inside a tile are).
inline bool tiles_aligned(const void* base, int64_t stride, const int64_t* batch_strides,
                          int nbatch) {
  bool ok = reinterpret_cast<uintptr_t>(base) % 16 == 0 && stride % 16 == 0;
  for (int k = 0; k < nbatch; ++k) ok = ok && batch_strides[k] % 16 == 0;
  return ok;
}

struct alignas(16) Words16 {
  uint32_t w[4];
};

// Byte offset of byte b of dst row r in the tile (Note [Tiled transposes]: 16-byte groups
// swizzled by the row's src vector).
template <int E>
__device__ __forceinline__ int tile_offset(int r, int b) {
  return r * kTileRowBytes + ((((b >> 4) ^ (r / TileShape<E>::kVecRows)) & 7) << 4) + (b & 15);
}

template <int E>
struct Item;
template <>
struct Item<1> {
  using type = uint8_t;
};
template <>
struct Item<2> {
  using type = uint16_t;
};
template <>
struct Item<4> {
  using type = uint32_t;
};
template <>
struct Item<8> {
  using type = uint64_t;
};

template <int E>
__device__ __forceinline__ void copy_item(void* to, const void* from) {
  using T = typename Item<E>::type;
  *static_cast<T*>(to) = *static_cast<const T*>(from);
}

// 16 bytes at p: one vector, or 16/E items (p is then only item-aligned).
template <int E, bool Vec>
__device__ __forceinline__ Words16 load16(const char* p) {
  Words16 v;
  if constexpr (Vec) {
    v = *reinterpret_cast<const Words16*>(p);
  } else if constexpr (E == 8) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      uint64_t x = *reinterpret_cast<const uint64_t*>(p + 8 * i);
      v.w[2 * i] = static_cast<uint32_t>(x);
      v.w[2 * i + 1] = static_cast<uint32_t>(x >> 32);
    }
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      uint32_t x = 0;
#pragma unroll
      for (int e = 0; e < 4 / E; ++e)
        x |= static_cast<uint32_t>(
                 *reinterpret_cast<const typename Item<E>::type*>(p + 4 * i + e * E))
             << (8 * E * e);
      v.w[i] = x;
    }
  }
  return v;
}

template <int E, bool Vec>
__device__ __forceinline__ void store16(char* p, const Words16& v) {
  if constexpr (Vec) {
    *reinterpret_cast<Words16*>(p) = v;
  } else if constexpr (E == 8) {
#pragma unroll
    for (int i = 0; i < 2; ++i)
      *reinterpret_cast<uint64_t*>(p + 8 * i) =
          static_cast<uint64_t>(v.w[2 * i]) | static_cast<uint64_t>(v.w[2 * i + 1]) << 32;
  } else {
    using T = typename Item<E>::type;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int e = 0; e < 4 / E; ++e)
        *reinterpret_cast<T*>(p + 4 * i + e * E) = static_cast<T>(v.w[i] >> (8 * E * e));
  }
}

// Stores the k x 16/E block that v holds (v[j]: 16/E rows of src column c + j) into the tile as
// 16/E dst rows from r, k items each, at column c.
template <int E>
__device__ __forceinline__ void put_block(unsigned char* tile, int r, int c, const Words16* v) {
  if constexpr (E == 8) {
#pragma unroll
    for (int m = 0; m < 2; ++m)
      *reinterpret_cast<uint2*>(tile + tile_offset<E>(r + m, c * E)) =
          make_uint2(v[0].w[2 * m], v[0].w[2 * m + 1]);
  } else if constexpr (E == 4) {
#pragma unroll
    for (int m = 0; m < 4; ++m)
      *reinterpret_cast<uint32_t*>(tile + tile_offset<E>(r + m, c * E)) = v[0].w[m];
  } else if constexpr (E == 2) {
    // Word q of column j holds rows 2q (low half) and 2q + 1.
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      *reinterpret_cast<uint32_t*>(tile + tile_offset<E>(r + 2 * q, c * E)) =
          __byte_perm(v[0].w[q], v[1].w[q], 0x5410);
      *reinterpret_cast<uint32_t*>(tile + tile_offset<E>(r + 2 * q + 1, c * E)) =
          __byte_perm(v[0].w[q], v[1].w[q], 0x7632);
    }
  } else {
    // Word q of column j holds rows 4q..4q+3 (byte i: row 4q + i); a 4x4 byte transpose.
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      uint32_t ab_lo = __byte_perm(v[0].w[q], v[1].w[q], 0x5140);  // a0 b0 a1 b1
      uint32_t ab_hi = __byte_perm(v[0].w[q], v[1].w[q], 0x7362);  // a2 b2 a3 b3
      uint32_t cd_lo = __byte_perm(v[2].w[q], v[3].w[q], 0x5140);
      uint32_t cd_hi = __byte_perm(v[2].w[q], v[3].w[q], 0x7362);
      uint32_t rows[4] = {__byte_perm(ab_lo, cd_lo, 0x5410), __byte_perm(ab_lo, cd_lo, 0x7632),
                          __byte_perm(ab_hi, cd_hi, 0x5410), __byte_perm(ab_hi, cd_hi, 0x7632)};
#pragma unroll
      for (int i = 0; i < 4; ++i)
        *reinterpret_cast<uint32_t*>(tile + tile_offset<E>(r + 4 * q + i, c * E)) = rows[i];
    }
  }
}

// Phase 1: src (the tile's first item) into the tile; nrows x ncols of it are inside the matrix.
template <int E, bool Vec>
__device__ __forceinline__ void load_tile(unsigned char* tile, const char* src, int64_t src_col,
                                          int nrows, int ncols) {
  using S = TileShape<E>;
  constexpr int kK = S::kBlock, kJHi = S::kWordCols / 4;
  const int t = static_cast<int>(threadIdx.x), warp = t >> 5;
  const int rv_lo = t & 7, j_lo = (t >> 3) & 3;  // a warp: 8 vectors down x 4 block columns
  Words16 v[S::kLoadUnits][kK];
  bool full[S::kLoadUnits];
  // All loads first, so that four vectors are in flight.
#pragma unroll
  for (int u = 0; u < S::kLoadUnits; ++u) {
    int q = u * (kTileThreads / 32) + warp;
    int r = (rv_lo + 8 * (q / kJHi)) * S::kVecRows, c = (j_lo + 4 * (q % kJHi)) * kK;
    full[u] = r + S::kVecRows <= nrows && c + kK <= ncols;
    if (full[u]) {
#pragma unroll
      for (int j = 0; j < kK; ++j) v[u][j] = load16<E, Vec>(src + (c + j) * src_col + r * E);
    }
  }
#pragma unroll
  for (int u = 0; u < S::kLoadUnits; ++u) {
    int q = u * (kTileThreads / 32) + warp;
    int r = (rv_lo + 8 * (q / kJHi)) * S::kVecRows, c = (j_lo + 4 * (q % kJHi)) * kK;
    if (full[u]) {
      put_block<E>(tile, r, c, v[u]);
    } else if (r < nrows && c < ncols) {  // at an edge: the items inside, one by one
      for (int m = 0; m < S::kVecRows && r + m < nrows; ++m)
        for (int j = 0; j < kK && c + j < ncols; ++j)
          copy_item<E>(tile + tile_offset<E>(r + m, (c + j) * E),
                       src + (c + j) * src_col + (r + m) * E);
    }
  }
}

// Phase 2: the tile's rows to dst (the tile's first item).
template <int E, bool Vec>
__device__ __forceinline__ void store_tile(const unsigned char* tile, char* dst, int64_t dst_row,
                                           int nrows, int ncols) {
  constexpr int kPer = 16 / E;  // items in 16 bytes
#pragma unroll
  for (int u = 0; u < TileShape<E>::kStoreUnits; ++u) {
    int id = u * kTileThreads + static_cast<int>(threadIdx.x);
    int r = id >> 3, g = id & 7;  // 8 neighbouring threads: one row's 128 bytes
    if (r >= nrows) continue;
    const unsigned char* s = tile + tile_offset<E>(r, g * 16);
    char* d = dst + r * dst_row + g * 16;
    if ((g + 1) * kPer <= ncols) {
      store16<E, Vec>(d, *reinterpret_cast<const Words16*>(s));
    } else {  // at the right edge
      for (int e = 0; e < kPer && g * kPer + e < ncols; ++e) copy_item<E>(d + e * E, s + e * E);
    }
  }
}

// Adds the byte offsets of batch entry a.batch0 + blockIdx.y.
__device__ __forceinline__ void add_batch_offsets(const TransposeTilesArgs& a, int64_t& src_off,
                                                  int64_t& dst_off) {
  int64_t b = a.batch0 + blockIdx.y;
  for (int k = 0; k < a.nbatch; ++k) {
    int64_t i = b % a.batch_sizes[k];
    b /= a.batch_sizes[k];
    src_off += i * a.src_batch[k];
    dst_off += i * a.dst_batch[k];
  }
}

// One tile a block (Note [Tiled transposes]); VecLoad / VecStore: that side moves 16-byte
// vectors.
template <int E, bool VecLoad, bool VecStore>
__global__ void __launch_bounds__(kTileThreads) transpose_tiles(TransposeTilesArgs a) {
  __shared__ Words16 tile_words[kTileRows * kTileRowBytes / 16];  // 16-byte aligned
  unsigned char* tile = reinterpret_cast<unsigned char*>(tile_words);
  constexpr int kCols = TileShape<E>::kCols;
  const uint32_t tile_r = blockIdx.x / a.tiles_c, tile_c = blockIdx.x - tile_r * a.tiles_c;
  const int64_t r0 = static_cast<int64_t>(tile_r) * kTileRows;
  const int64_t c0 = static_cast<int64_t>(tile_c) * kCols;
  int64_t src_off = r0 * E + c0 * a.src_col, dst_off = r0 * a.dst_row + c0 * E;
  add_batch_offsets(a, src_off, dst_off);
  const int nrows = static_cast<int>(a.rows - r0 < kTileRows ? a.rows - r0 : kTileRows);
  const int ncols = static_cast<int>(a.cols - c0 < kCols ? a.cols - c0 : kCols);
  load_tile<E, VecLoad>(tile, a.src + src_off, a.src_col, nrows, ncols);
  __syncthreads();
  store_tile<E, VecStore>(tile, a.dst + dst_off, a.dst_row, nrows, ncols);
}

}  // namespace genesis::kernels

#include "cpu/copy.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/errors.h"
#include "core/scalar.h"
#include "cpu/half_simd.h"
#include "cpu/loop.h"
#include "cpu/transpose_blocks.h"

namespace genesis::cpu {

namespace {

template <typename D, typename S>
void cast_run(const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
  char* d = p[0];
  const char* s = p[1];
  if (st[0] == sizeof(D) && st[1] == sizeof(S)) {
    D* dst = reinterpret_cast<D*>(d);
    const S* src = reinterpret_cast<const S*>(s);
    if constexpr (std::is_same_v<D, Half> && std::is_same_v<S, float>) {
      if (float_to_half_simd(reinterpret_cast<uint16_t*>(dst), src, n)) return;
    } else if constexpr (std::is_same_v<D, float> && std::is_same_v<S, Half>) {
      if (half_to_float_simd(dst, reinterpret_cast<const uint16_t*>(src), n)) return;
    }
    for (int64_t i = 0; i < n; ++i) dst[i] = cast_value<D>(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<D*>(d + i * st[0]) =
          cast_value<D>(*reinterpret_cast<const S*>(s + i * st[1]));
  }
}

// Same-type strided copy moves bytes only, so it is keyed by item size, not dtype.
template <typename Word>
void move_run(const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
  if (st[0] == sizeof(Word) && st[1] == sizeof(Word)) {
    std::memcpy(p[0], p[1], static_cast<size_t>(n) * sizeof(Word));
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<Word*>(p[0] + i * st[0]) = *reinterpret_cast<const Word*>(p[1] + i * st[1]);
}

template <typename Word>
void fill_words(const Tensor& dst, const LoopPlan& plan, uint64_t pattern) {
  Word value;
  std::memcpy(&value, &pattern, sizeof(Word));
  for_each_run<1>(
      plan, {written_base(dst)},
      [value](const std::array<char*, 1>& p, const std::array<int64_t, 1>& st, int64_t n) {
        if (st[0] == sizeof(Word)) {
          Word* out = reinterpret_cast<Word*>(p[0]);
          for (int64_t i = 0; i < n; ++i) out[i] = value;
        } else {
          for (int64_t i = 0; i < n; ++i) *reinterpret_cast<Word*>(p[0] + i * st[0]) = value;
        }
      });
}

// Note [Blocked transposes on the CPU]
// When the source walks memory along a different dim than the destination (t().contiguous(),
// permutes), a plain loop reads one element per cache line. Copying in kTile x kTile tiles keeps
// both the source and destination lines of a tile in cache.
constexpr int64_t kTile = 32;
// Register blocks (Note [Transposing blocks in registers]) prefer larger tiles: t().contiguous()
// of 4096x4096 took 5.0/3.1/2.4/2.5 ms in uint8 and 4.7/5.2/4.5/5.2 ms in float32 with tiles
// of 32/64/128/256, where the item loop slowed from 12.6 to 15.5 ms at 128 (float32 -> float64).
constexpr int64_t kBlockTile = 128;

bool is_transposed(const LoopPlan& plan, int64_t src_item) {
  return plan.ndim() >= 2 && plan.byte_strides[1][0] != src_item &&
         std::llabs(plan.byte_strides[1][1]) == src_item;
}

// The dst and src byte offsets of matrix m of a plan whose first two dims are the matrix.
std::pair<int64_t, int64_t> matrix_offsets(const LoopPlan& plan, int64_t m) {
  int64_t od = 0, os = 0;
  for (int64_t d = 2; d < plan.ndim(); ++d) {
    int64_t idx = m % plan.sizes[d];
    m /= plan.sizes[d];
    od += idx * plan.byte_strides[0][d];
    os += idx * plan.byte_strides[1][d];
  }
  return {od, os};
}

template <typename D, typename S>
void copy_tiles(const LoopPlan& plan, char* dst, const char* src) {
  const int64_t cols = plan.sizes[0], rows = plan.sizes[1];
  const int64_t d0 = plan.byte_strides[0][0], d1 = plan.byte_strides[0][1];
  const int64_t s0 = plan.byte_strides[1][0], s1 = plan.byte_strides[1][1];
  // Same-size items, the destination dense along dim 0 and the source along dim 1: whole
  // blocks go through registers.
  const bool blocks =
      std::is_same_v<D, S> && kBlockTranspose && d0 == static_cast<int64_t>(sizeof(D)) && s1 == d0;
  const int64_t tile = blocks ? kBlockTile : kTile;
  const int64_t col_tiles = (cols + tile - 1) / tile, row_tiles = (rows + tile - 1) / tile;
  const int64_t per_matrix = col_tiles * row_tiles;
  const int64_t matrices = plan.numel / (cols * rows);
  // A thread's least work: 16 tiles of kTile x kTile items, whatever the tile.
  const int64_t grain = std::max<int64_t>(1, 16 * kTile * kTile / (tile * tile));
  parallel_for(matrices * per_matrix, grain, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      // Offsets of this task's matrix from the dims beyond the first two.
      auto [od, os] = matrix_offsets(plan, task / per_matrix);
      int64_t t = task % per_matrix;
      int64_t r0 = (t / col_tiles) * tile, c0 = (t % col_tiles) * tile;
      int64_t r1 = std::min(rows, r0 + tile), c1 = std::min(cols, c0 + tile);
      auto items = [&](int64_t ra, int64_t rb, int64_t ca, int64_t cb) {
        for (int64_t r = ra; r < rb; ++r) {
          char* drow = dst + od + r * d1;
          const char* srow = src + os + r * s1;
          for (int64_t c = ca; c < cb; ++c)
            *reinterpret_cast<D*>(drow + c * d0) =
                cast_value<D>(*reinterpret_cast<const S*>(srow + c * s0));
        }
      };
      if constexpr (std::is_same_v<D, S> && kBlockTranspose) {
        if (blocks) {  // Note [Transposing blocks in registers]
          constexpr int W = sizeof(D);
          constexpr int64_t B = kBlockEdge<W>;
          const int64_t rb = r0 + (r1 - r0) / B * B, cb = c0 + (c1 - c0) / B * B;
          for (int64_t r = r0; r < rb; r += B)
            for (int64_t c = c0; c < cb; c += B)
              transpose_block<W>(src + os + c * s0 + r * W, s0, dst + od + r * d1 + c * W, d1);
          items(r0, rb, cb, c1);
          items(rb, r1, c0, c1);
          continue;
        }
      }
      items(r0, r1, c0, c1);
    }
  });
}

// Note [Narrow transposes on the CPU]: a transpose with a narrow side (HWC -> CHW images, 3
// rows; batches of 8 x 8 matrices) is below the tiles' 32 x 32 minimum, and the run loop then
// walked it a strided run at a time: an image row of 2^22 items read three times over, or one
// 8-item run a call. Here the long side is cut into chunks of kNarrowChunkBytes of the narrow
// side's items, which stay in L1 while each narrow row (or column) is written (read) in order;
// a chunk covers whole small matrices; packed pixels of 3 or 4 channels are split in one pass
// over the chunk. 2 cores: HWC -> CHW 1024^2 x 3 uint8 1.56 -> 0.58 ms (NumPy 0.86), float32
// 1.65 -> 0.6-0.7 ms, CHW -> HWC uint8 4.81 -> 1.12 ms, 4096 8x8 float32 mT 185 -> 98 us.
// Same-size items, dst dense along dim 0 and src along dim 1 (dst[r][c] = src[c][r]).
constexpr int64_t kNarrowSideBytes = 64;  // the most bytes of a narrow row or column
constexpr int64_t kNarrowChunkBytes = 16384;

bool is_narrow_transpose(const LoopPlan& plan, int64_t item) {
  return plan.ndim() >= 2 && plan.byte_strides[0][0] == item && plan.byte_strides[1][1] == item &&
         plan.byte_strides[1][0] != item &&
         (plan.sizes[1] * item <= kNarrowSideBytes || plan.sizes[0] * item <= kNarrowSideBytes);
}

// dst row r, items k0..k1, from the packed groups of R items at src: dst[r][c] = src[c * R + r].
template <typename W, int R>
void deinterleave(char* dst, int64_t dst_row, const char* src, int64_t k0, int64_t k1) {
  const W* in = reinterpret_cast<const W*>(src);
  W* out[R];
  for (int r = 0; r < R; ++r) out[r] = reinterpret_cast<W*>(dst + r * dst_row);
  for (int64_t c = k0; c < k1; ++c)
    for (int r = 0; r < R; ++r) out[r][c] = in[c * R + r];
}

template <typename W>
void copy_narrow(const LoopPlan& plan, char* dst, const char* src) {
  const int64_t cols = plan.sizes[0], rows = plan.sizes[1];
  const int64_t d1 = plan.byte_strides[0][1], s0 = plan.byte_strides[1][0];
  constexpr int64_t E = sizeof(W);
  const bool rows_narrow = rows * E <= kNarrowSideBytes;  // else the columns are
  const int64_t narrow = rows_narrow ? rows : cols, long_side = rows_narrow ? cols : rows;
  const int64_t chunk = std::max<int64_t>(1, kNarrowChunkBytes / (narrow * E));
  const int64_t chunks = (long_side + chunk - 1) / chunk;
  const int64_t matrices = plan.numel / (cols * rows);
  const int64_t grain =
      std::max<int64_t>(1, kNarrowChunkBytes / (std::min(chunk, long_side) * narrow * E));
  parallel_for(matrices * chunks, grain, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      auto [od, os] = matrix_offsets(plan, task / chunks);
      const int64_t k0 = (task % chunks) * chunk, k1 = std::min(long_side, k0 + chunk);
      if (rows_narrow && (rows == 3 || rows == 4) && s0 == rows * E) {
        // Packed pixels of 3 or 4 channels: every channel in one pass over the chunk, so the
        // compiler sees whole interleaved groups (image HWC -> CHW).
        rows == 3 ? deinterleave<W, 3>(dst + od, d1, src + os, k0, k1)
                  : deinterleave<W, 4>(dst + od, d1, src + os, k0, k1);
      } else if (rows_narrow) {
        for (int64_t r = 0; r < rows; ++r) {
          W* out = reinterpret_cast<W*>(dst + od + r * d1);
          const char* in = src + os + r * E;
          for (int64_t c = k0; c < k1; ++c) out[c] = *reinterpret_cast<const W*>(in + c * s0);
        }
      } else {  // column by column: each src run read in order, the dst chunk in L1
        for (int64_t c = 0; c < cols; ++c) {
          char* out = dst + od + c * E;
          const W* in = reinterpret_cast<const W*>(src + os + c * s0);
          for (int64_t r = k0; r < k1; ++r) *reinterpret_cast<W*>(out + r * d1) = in[r];
        }
      }
    }
  });
}

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const Shape* strides[2] = {&dst.strides(), &src.strides()};
  int64_t sizes[2] = {static_cast<int64_t>(dst.itemsize()), static_cast<int64_t>(src.itemsize())};
  LoopPlan plan = plan_loop(dst.sizes(), strides, sizes, 2);
  std::array<char*, 2> bases = {written_base(dst), read_base(src)};

  if (dst.dtype() == src.dtype() && is_narrow_transpose(plan, sizes[0])) {
    switch (dst.itemsize()) {  // Note [Narrow transposes on the CPU]
      case 1:
        return copy_narrow<uint8_t>(plan, bases[0], bases[1]);
      case 2:
        return copy_narrow<uint16_t>(plan, bases[0], bases[1]);
      case 4:
        return copy_narrow<uint32_t>(plan, bases[0], bases[1]);
      case 8:
        return copy_narrow<uint64_t>(plan, bases[0], bases[1]);
    }
  }
  if (is_transposed(plan, static_cast<int64_t>(src.itemsize())) && plan.sizes[0] >= kTile &&
      plan.sizes[1] >= kTile) {
    if (dst.dtype() == src.dtype()) {
      switch (dst.itemsize()) {
        case 1:
          return copy_tiles<uint8_t, uint8_t>(plan, bases[0], bases[1]);
        case 2:
          return copy_tiles<uint16_t, uint16_t>(plan, bases[0], bases[1]);
        case 4:
          return copy_tiles<uint32_t, uint32_t>(plan, bases[0], bases[1]);
        case 8:
          return copy_tiles<uint64_t, uint64_t>(plan, bases[0], bases[1]);
      }
    }
    return GENESIS_DISPATCH_ALL_TYPES(dst.dtype(), "copy_", [&] {
      using dst_t = scalar_t;
      GENESIS_DISPATCH_ALL_TYPES(src.dtype(), "copy_",
                                 [&] { copy_tiles<dst_t, scalar_t>(plan, bases[0], bases[1]); });
    });
  }
  if (dst.dtype() == src.dtype()) {
    switch (dst.itemsize()) {
      case 1:
        return for_each_run<2>(plan, bases, move_run<uint8_t>);
      case 2:
        return for_each_run<2>(plan, bases, move_run<uint16_t>);
      case 4:
        return for_each_run<2>(plan, bases, move_run<uint32_t>);
      case 8:
        return for_each_run<2>(plan, bases, move_run<uint64_t>);
    }
  }
  GENESIS_DISPATCH_ALL_TYPES(dst.dtype(), "copy_", [&] {
    using dst_t = scalar_t;
    GENESIS_DISPATCH_ALL_TYPES(src.dtype(), "copy_",
                               [&] { for_each_run<2>(plan, bases, cast_run<dst_t, scalar_t>); });
  });
}

void cast_run(ScalarType to, ScalarType from, void* out, const void* in, int64_t n) {
  const std::array<char*, 2> p = {static_cast<char*>(out),
                                  const_cast<char*>(static_cast<const char*>(in))};
  GENESIS_DISPATCH_ALL_TYPES(to, "copy_", [&] {
    using dst_t = scalar_t;
    GENESIS_DISPATCH_ALL_TYPES(from, "copy_", [&] {
      const std::array<int64_t, 2> st = {sizeof(dst_t), sizeof(scalar_t)};
      cast_run<dst_t, scalar_t>(p, st, n);
    });
  });
}

void fill(const Tensor& dst, uint64_t pattern) {
  if (dst.numel() == 0) return;
  const Shape* strides[1] = {&dst.strides()};
  int64_t size = static_cast<int64_t>(dst.itemsize());
  LoopPlan plan = plan_loop(dst.sizes(), strides, &size, 1);
  switch (dst.itemsize()) {
    case 1:
      return fill_words<uint8_t>(dst, plan, pattern);
    case 2:
      return fill_words<uint16_t>(dst, plan, pattern);
    case 4:
      return fill_words<uint32_t>(dst, plan, pattern);
    case 8:
      return fill_words<uint64_t>(dst, plan, pattern);
  }
  GENESIS_FAIL(ErrorKind::Runtime, "fill_", "unsupported item size ", dst.itemsize());
}

}  // namespace genesis::cpu

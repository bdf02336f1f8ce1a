#include "cpu/transpose_blocks.h"

#include <cstring>

// Note [Transposing blocks in registers]
// A tiled transpose that moves one item at a time costs a load and a store per item, and when
// the source's rows lie a multiple of 4 KiB apart (4096 columns) the lines of a tile all fall in
// one L1 set and evict each other: t().contiguous() of 4096x4096 moved about one item per
// nanosecond whatever its size (uint8 16 ms, float32 13.6 ms on the 2-core VM, PyTorch 8 ms and
// 36 ms). Here a square block is read as whole vectors, one per source line, transposed with
// SSE2's interleaving unpacks (log2(edge) rounds), and written as whole vectors, one per
// destination line: 8x8 bytes through 64-bit halves, 8x8 16-bit items, 4x4 32-bit items and
// 2x2 64-bit items. SSE2 is part of x86-64, so no dispatch is needed; elsewhere (kBlockTranspose
// false) the caller keeps its item loop.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

namespace genesis::cpu {

namespace {

inline __m128i load(const char* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void store(char* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
inline __m128i load_half(const char* p) {
  return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
}
inline void store_half(char* p, __m128i v) { _mm_storel_epi64(reinterpret_cast<__m128i*>(p), v); }

}  // namespace

template <>
void transpose_block<1>(const char* src, int64_t sp, char* dst, int64_t dp) {
  __m128i a[8];
  for (int j = 0; j < 8; ++j) a[j] = load_half(src + j * sp);
  // Bytes of lines 2i and 2i+1 interleaved, then pairs of those, then quads: each 16-byte
  // result holds two output lines.
  __m128i b0 = _mm_unpacklo_epi8(a[0], a[1]), b1 = _mm_unpacklo_epi8(a[2], a[3]);
  __m128i b2 = _mm_unpacklo_epi8(a[4], a[5]), b3 = _mm_unpacklo_epi8(a[6], a[7]);
  __m128i c0 = _mm_unpacklo_epi16(b0, b1), c1 = _mm_unpackhi_epi16(b0, b1);
  __m128i c2 = _mm_unpacklo_epi16(b2, b3), c3 = _mm_unpackhi_epi16(b2, b3);
  __m128i d[4] = {_mm_unpacklo_epi32(c0, c2), _mm_unpackhi_epi32(c0, c2),
                  _mm_unpacklo_epi32(c1, c3), _mm_unpackhi_epi32(c1, c3)};
  for (int k = 0; k < 4; ++k) {
    store_half(dst + (2 * k) * dp, d[k]);
    store_half(dst + (2 * k + 1) * dp, _mm_srli_si128(d[k], 8));
  }
}

template <>
void transpose_block<2>(const char* src, int64_t sp, char* dst, int64_t dp) {
  __m128i a[8];
  for (int j = 0; j < 8; ++j) a[j] = load(src + j * sp);
  __m128i b[8], c[8];
  for (int i = 0; i < 4; ++i) {
    b[2 * i] = _mm_unpacklo_epi16(a[2 * i], a[2 * i + 1]);      // items 0-3 of lines 2i, 2i+1
    b[2 * i + 1] = _mm_unpackhi_epi16(a[2 * i], a[2 * i + 1]);  // items 4-7
  }
  for (int h = 0; h < 2; ++h)      // h: items 0-3 or 4-7
    for (int q = 0; q < 2; ++q) {  // q: lines 0-3 or 4-7
      __m128i x = b[4 * q + h], y = b[4 * q + 2 + h];
      c[4 * h + q] = _mm_unpacklo_epi32(x, y);
      c[4 * h + 2 + q] = _mm_unpackhi_epi32(x, y);
    }
  // c[4h + 2p + q]: output lines 4h + 2p and 4h + 2p + 1, input lines 4q..4q+3.
  for (int h = 0; h < 2; ++h)
    for (int p = 0; p < 2; ++p) {
      __m128i lo = c[4 * h + 2 * p], hi = c[4 * h + 2 * p + 1];
      store(dst + (4 * h + 2 * p) * dp, _mm_unpacklo_epi64(lo, hi));
      store(dst + (4 * h + 2 * p + 1) * dp, _mm_unpackhi_epi64(lo, hi));
    }
}

template <>
void transpose_block<4>(const char* src, int64_t sp, char* dst, int64_t dp) {
  __m128i a0 = load(src), a1 = load(src + sp), a2 = load(src + 2 * sp), a3 = load(src + 3 * sp);
  __m128i b0 = _mm_unpacklo_epi32(a0, a1), b1 = _mm_unpackhi_epi32(a0, a1);
  __m128i b2 = _mm_unpacklo_epi32(a2, a3), b3 = _mm_unpackhi_epi32(a2, a3);
  store(dst, _mm_unpacklo_epi64(b0, b2));
  store(dst + dp, _mm_unpackhi_epi64(b0, b2));
  store(dst + 2 * dp, _mm_unpacklo_epi64(b1, b3));
  store(dst + 3 * dp, _mm_unpackhi_epi64(b1, b3));
}

template <>
void transpose_block<8>(const char* src, int64_t sp, char* dst, int64_t dp) {
  __m128i a0 = load(src), a1 = load(src + sp);
  store(dst, _mm_unpacklo_epi64(a0, a1));
  store(dst + dp, _mm_unpackhi_epi64(a0, a1));
}

}  // namespace genesis::cpu

#endif

#include "cpu/gemm.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "core/errors.h"
#include "core/half.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"

// Note [CPU GEMM]
// A Goto-style blocked GEMM. C is cut into tiles (about MC rows by NC columns) that the threads
// share out; for each KC-deep slice of K a thread packs its slice of B into NR-wide column panels
// and its slice of A into MR-tall row panels (zero padded), so the micro-kernel reads both with
// unit stride from cache and keeps an MR x NR block of C in vector registers. Packing also absorbs
// any input strides (transposed, sliced or broadcast operands cost nothing extra). A thread takes
// its tiles column block by column block, packing each slice of B once for all its row blocks
// there (packing B again per tile cost a Linear's transposed weight a third of its time).
// Packing row-major A or column-major B is a transpose: float32 runs through 8 x 8 register
// transposes (transpose_runs), not one item a store.
// The micro-kernel is written once with GCC/Clang vector extensions and compiled per instruction
// set through target attributes (AVX-512, AVX2+FMA, and a baseline for any other CPU); the CPU
// picks one at run time, so the library needs no -march flag.

#if defined(__GNUC__) || defined(__clang__)
#define GENESIS_GEMM_INLINE [[gnu::always_inline]] inline
#else
#define GENESIS_GEMM_INLINE inline
#endif

namespace genesis::cpu {

namespace {

typedef float f32x4 __attribute__((vector_size(16)));
typedef float f32x16 __attribute__((vector_size(64)));
typedef double f64x2 __attribute__((vector_size(16)));
typedef double f64x8 __attribute__((vector_size(64)));
#if defined(__x86_64__)
typedef float f32x8 __attribute__((vector_size(32)));
typedef double f64x4 __attribute__((vector_size(32)));
#endif

template <typename T, typename Out = T>
struct Problem {
  Out* c;
  const T* a;
  const T* b;
  int64_t sa[3], sb[3];  // {batch, row, col} element strides
  int64_t m, n, k;
  // A's k and B's n in segments (GemmSegments, Note [Convolution over shifted windows] in
  // convolution.cpp): slices of k end at A's segments' ends, B is packed a segment at a time.
  GemmSegments a_k{}, b_n{};
};

// The offset of A's column p (of B's column j) from its row's start.
template <typename P_>
GENESIS_GEMM_INLINE int64_t a_column(const P_& P, int64_t p) {
  return P.a_k.length ? P.a_k.offsets[p / P.a_k.length] + p % P.a_k.length * P.sa[2] : p * P.sa[2];
}
template <typename P_>
GENESIS_GEMM_INLINE int64_t b_column(const P_& P, int64_t j) {
  return P.b_n.length ? P.b_n.offsets[j / P.b_n.length] + j % P.b_n.length * P.sb[2] : j * P.sb[2];
}
// The depth of the slice of k from p0: at most kc_most, and within one of A's segments.
template <typename P_>
GENESIS_GEMM_INLINE int64_t slice_depth(const P_& P, int64_t p0, int64_t kc_most) {
  const int64_t kc = std::min<int64_t>(kc_most, P.k - p0);
  return P.a_k.length ? std::min<int64_t>(kc, P.a_k.length - p0 % P.a_k.length) : kc;
}
// The end of the piece of B's columns from j (before `end`) that lies in one segment:
// packs run a piece at a time (segments are whole panels: gemm_segmented checks).
template <typename P_>
GENESIS_GEMM_INLINE int64_t b_piece_end(const P_& P, int64_t j, int64_t end) {
  return P.b_n.length ? std::min(end, (j / P.b_n.length + 1) * P.b_n.length) : end;
}

#if defined(__x86_64__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12))
#define GENESIS_GEMM_TRANSPOSE8 1
// Rows r[0..8) of an 8 x 8 block of floats become its columns: pairs interleaved, then quads,
// then halves (the unpack / shuffle / lane-permute sequence, one instruction a step on AVX).
GENESIS_GEMM_INLINE void transpose8(f32x8 (&r)[8]) {
  f32x8 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int i = 0; i < 8; i += 4)
    for (int h = 0; h < 2; ++h) {
      u[i + 2 * h] = __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[i + 2 * h + 1] =
          __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  for (int i = 0; i < 4; ++i) {
    r[i] = __builtin_shufflevector(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[i + 4] = __builtin_shufflevector(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

// dst[p * ld + j] = src[j * stride + p] for j < rows (a multiple of 8), p < kc: runs that are
// contiguous in the source written across the panel, 8 x 8 blocks through registers (a scalar
// loop stores one item a cycle; packing a Linear's transposed weight took a third of a small
// product's time that way). Returns the p where the blocks end (the caller copies the rest).
GENESIS_GEMM_INLINE int64_t transpose_runs(float* dst, int64_t ld, const float* src, int64_t stride,
                                           int rows, int64_t kc) {
  int64_t p0 = 0;
  for (; p0 + 8 <= kc; p0 += 8)
    for (int j0 = 0; j0 < rows; j0 += 8) {
      f32x8 r[8];
      for (int j = 0; j < 8; ++j) std::memcpy(&r[j], src + (j0 + j) * stride + p0, sizeof(f32x8));
      transpose8(r);
      for (int p = 0; p < 8; ++p) std::memcpy(dst + (p0 + p) * ld + j0, &r[p], sizeof(f32x8));
    }
  return p0;
}
#endif

// A block of A (mc x kc, strides rs/cs) as MR-row panels, each stored k-major (MR values per k).
template <typename T, int MR>
GENESIS_GEMM_INLINE void pack_a(T* dst, const T* a, int64_t rs, int64_t cs, int64_t mc,
                                int64_t kc) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR, dst += MR * kc) {
    const T* src = a + i0 * rs;
    int64_t rows = std::min<int64_t>(MR, mc - i0);
    if (rows == MR) {
      int64_t p_start = 0;
#if defined(GENESIS_GEMM_TRANSPOSE8)
      if constexpr (std::is_same_v<T, float> && MR >= 8) {
        if (cs == 1) {  // row-major A: its first rows in blocks of 8
          constexpr int kBlocked = MR / 8 * 8;
          p_start = transpose_runs(dst, MR, src, rs, kBlocked, kc);
          // the block's other rows, then every row's tail past the blocks
          for (int64_t p = 0; p < p_start; ++p)
            for (int i = kBlocked; i < MR; ++i) dst[p * MR + i] = src[i * rs + p];
        }
      }
#endif
      for (int64_t p = p_start; p < kc; ++p)
        for (int i = 0; i < MR; ++i) dst[p * MR + i] = src[i * rs + p * cs];
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t i = 0; i < rows; ++i) dst[p * MR + i] = src[i * rs + p * cs];
        for (int64_t i = rows; i < MR; ++i) dst[p * MR + i] = T(0);
      }
    }
  }
}

// A block of B (kc x nc, strides rs/cs) as NR-column panels, each stored k-major.
template <typename T, int NR>
GENESIS_GEMM_INLINE void pack_b(T* dst, const T* b, int64_t rs, int64_t cs, int64_t kc,
                                int64_t nc) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR, dst += NR * kc) {
    const T* src = b + j0 * cs;
    int64_t cols = std::min<int64_t>(NR, nc - j0);
    if (cols == NR && cs == 1) {
      for (int64_t p = 0; p < kc; ++p) std::memcpy(dst + p * NR, src + p * rs, NR * sizeof(T));
    } else if (rs == 1) {  // column-major B: walk down each column
#if defined(GENESIS_GEMM_TRANSPOSE8)
      if constexpr (std::is_same_v<T, float> && NR % 8 == 0) {
        if (cols == NR) {
          int64_t p0 = transpose_runs(dst, NR, src, cs, NR, kc);
          for (int64_t p = p0; p < kc; ++p)
            for (int j = 0; j < NR; ++j) dst[p * NR + j] = src[p + j * cs];
          continue;
        }
      }
#endif
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t p = 0; p < kc; ++p) dst[p * NR + j] = src[p + j * cs];
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t j = cols; j < NR; ++j) dst[p * NR + j] = T(0);
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t j = 0; j < cols; ++j) dst[p * NR + j] = src[p * rs + j * cs];
        for (int64_t j = cols; j < NR; ++j) dst[p * NR + j] = T(0);
      }
    }
  }
}

// C[0:m, 0:n] (row stride ldc) = or += an A panel @ packed B panel, m <= MR, n <= NR. The A
// panel is packed (row i's value at k: a[k * MR + i]) or, with lda > 0, A itself, row-major
// (a[i * lda + k]; Note [Row-major A read in place]).
template <typename T, typename V, int MR, int NV, bool BInPlace = false>
GENESIS_GEMM_INLINE void micro_kernel(int64_t kc, const T* __restrict a, const T* __restrict b,
                                      T* c, int64_t ldc, bool add, int64_t m, int64_t n,
                                      int64_t lda = 0, int64_t ldb = 0) {
  constexpr int W = sizeof(V) / sizeof(T);
  constexpr int NR = NV * W;
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = V{};
  if (!BInPlace && lda > 0) {
    for (int64_t p = 0; p < kc; ++p, ++a, b += NR) {
      V bv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) std::memcpy(&bv[v], b + v * W, sizeof(V));
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] += a[i * lda] * bv[v];
    }
  } else {
    const int64_t b_step = BInPlace ? ldb : NR;
    for (int64_t p = 0; p < kc; ++p, a += MR, b += b_step) {
      V bv[NV];
      // B's rows where they lie (Note [Row-major B read in place]): the row a few steps ahead
      // is asked for now, as rows a page or more apart defeat the hardware's prefetcher.
      if constexpr (BInPlace) __builtin_prefetch(b + 8 * ldb);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) std::memcpy(&bv[v], b + v * W, sizeof(V));
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] += a[i] * bv[v];
    }
  }
  if (m == MR && n == NR) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        T* dst = c + i * ldc + v * W;
        if (add) {
          V old;
          std::memcpy(&old, dst, sizeof(V));
          acc[i][v] += old;
        }
        std::memcpy(dst, &acc[i][v], sizeof(V));
      }
    return;
  }
  T tmp[MR][NR];
  std::memcpy(tmp, acc, sizeof(tmp));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = add ? c[i * ldc + j] + tmp[i][j] : tmp[i][j];
}

// Row panels in a tile up to which a row-major B is read in place (Note [Row-major B read in
// place]).
constexpr int64_t kBInPlaceRows = 4;

// Tiles of C sharing a column block: rows [i0, i_end) in blocks of mc, columns [j0, j0 + nc) of
// batch item bi. Each KC-deep slice of B is packed once for all the row blocks (Goto's loop
// order: B's panel stays in L2/L3 while A's blocks stream through). The buffers hold mc x KC and
// KC x nc values (mc, nc rounded up to MR, NR).
template <typename T, typename V, int MR, int NV, int KC>
GENESIS_GEMM_INLINE void tile(const Problem<T>& P, int64_t bi, int64_t i0, int64_t i_end,
                              int64_t mc, int64_t j0, int64_t nc, T* abuf, T* bbuf) {
  constexpr int NR = NV * static_cast<int>(sizeof(V) / sizeof(T));
  // Note [Row-major B read in place]: a product of few rows (one tile of at most kBInPlaceRows)
  // uses each item of B that many times, so packing B (a read and a write of all of it) cost
  // more than the product: 8 x 768 @ 768 x 3072 ran at 72-78 GFLOP/s against torch's 119-121.
  // Then a row-major B's whole column panels are read where they lie; only a last panel of
  // fewer columns is packed (zero padded). A B in segments (a convolution's shifted windows,
  // Note [Convolution over shifted windows]) is read in place for any rows, sparing the copy of
  // each window that packing makes (the same time, 2.07-2.11 ms, for an 8 x 64 x 32 x 32 ->
  // 64 weight gradient).
  const bool b_in_place =
      P.sb[2] == 1 && P.sb[1] > 0 && (P.b_n.length || i_end - i0 <= kBInPlaceRows * MR);
  const int64_t b_full = b_in_place ? nc / NR * NR : 0;
  for (int64_t p0 = 0, kc; p0 < P.k; p0 += kc) {
    kc = slice_depth(P, p0, KC);
    for (int64_t j = j0 + b_full, end; j < j0 + nc; j = end) {
      end = b_piece_end(P, j, j0 + nc);
      pack_b<T, NR>(bbuf + (j - j0) * kc, P.b + bi * P.sb[0] + p0 * P.sb[1] + b_column(P, j),
                    P.sb[1], P.sb[2], kc, end - j);
    }
    for (int64_t ib = i0; ib < i_end; ib += mc) {
      int64_t rows = std::min<int64_t>(mc, i_end - ib);
      const T* a = P.a + bi * P.sa[0] + ib * P.sa[1];
      T* c = P.c + (bi * P.m + ib) * P.n + j0;
      // Note [Row-major A read in place]: a row-major A (unit k stride) whose row stride is not
      // a multiple of 4 KiB is read by the micro-kernel where it lies, its MR rows side by side;
      // only a last panel of fewer rows is packed (zero padded). Packing A cost as much as the
      // product where n is small (8192 x 128 @ 128 x 32: a third of the time). Rows 4 KiB
      // apart share L1 sets: read in place, 1024 x 4096 @ 4096 x 1024 ran at 346 GFLOP/s against
      // 394 packed, so such strides still pack.
      const bool in_place = !b_in_place && P.sa[2] == 1 && P.sa[1] > 0 &&
                            (P.sa[1] * static_cast<int64_t>(sizeof(T))) % 4096 != 0;
      const int64_t full = in_place ? rows / MR * MR : 0;
      const int64_t a_p0 = a_column(P, p0);
      if (full < rows)
        pack_a<T, MR>(abuf + full * kc, a + full * P.sa[1] + a_p0, P.sa[1], P.sa[2], rows - full,
                      kc);
      // A row panel (MR x KC: 12 KB for float32 on AVX-512) stays in L1 while the micro-kernel
      // sweeps it across B's column panels, which stream from L2. Column panels outermost kept a
      // 32 KB B panel and the streaming A panels in the 48 KB L1: 1024^3 ran at 392-396 GFLOP/s
      // against 421-423 this way (with Note [Tiles cut at whole panels]; torch 436-444).
      for (int64_t ir = 0; ir < rows; ir += MR)
        for (int64_t jr = 0; jr < nc; jr += NR) {
          if (jr < b_full) {
            micro_kernel<T, V, MR, NV, true>(
                kc, abuf + ir * kc, P.b + bi * P.sb[0] + b_column(P, j0 + jr) + p0 * P.sb[1],
                c + ir * P.n + jr, P.n, p0 > 0, std::min<int64_t>(MR, rows - ir), NR, 0, P.sb[1]);
            continue;
          }
          const bool direct = ir < full;
          micro_kernel<T, V, MR, NV>(kc, direct ? a + ir * P.sa[1] + a_p0 : abuf + ir * kc,
                                     bbuf + jr * kc, c + ir * P.n + jr, P.n, p0 > 0,
                                     std::min<int64_t>(MR, rows - ir),
                                     std::min<int64_t>(NR, nc - jr), direct ? P.sa[1] : 0);
        }
    }
  }
}

// Note [Products of a few rows]: a product of a few rows (a batch-1 Linear, one decoding step)
// uses each item of B that many times, so it runs at the rate B streams from memory, and the
// blocked path's packing of B and its MR-row micro-kernel (12 rows of work for one) cost two to
// four times that: a batch-1 Linear 768 -> 3072 took 577 us against torch's 156. Here no
// packing: C's rows are sums of B's rows (B row-major, up to four rows of A: each step adds four
// rows of B, scaled by A's items, to a chunk of C's columns that stays in L1) or dot products
// with B's columns (B column-major, a Linear's weight, up to kFewRows rows of A, four at a time:
// each column is contiguous, four columns against every row at once). Threads take chunks of
// C's columns.
constexpr int64_t kFewRows = kGemmFewRows;

template <typename V, typename T>
GENESIS_GEMM_INLINE V splat(T x) {
  return V{} + x;
}

// Adds R of B's rows, from row p, scaled by A's items, into C[0:M, j0:j1] (row-major B).
template <typename T, typename V, int M, int R>
GENESIS_GEMM_INLINE void add_rows(const Problem<T>& P, const T* a, const T* b, T* c, int64_t p,
                                  int64_t j0, int64_t j1) {
  constexpr int W = sizeof(V) / sizeof(T);
  const int64_t n = P.n, vec_end = j0 + (j1 - j0) / W * W;
  T av[M][R];
  V as[M][R];
  const T* r[R];
#pragma GCC unroll 4
  for (int q = 0; q < R; ++q) r[q] = b + (p + q) * P.sb[1];
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 4
    for (int q = 0; q < R; ++q) {
      av[i][q] = a[i * P.sa[1] + (p + q) * P.sa[2]];
      as[i][q] = splat<V>(av[i][q]);
    }
  for (int64_t j = j0; j < vec_end; j += W) {
    V bv[R];
#pragma GCC unroll 4
    for (int q = 0; q < R; ++q) std::memcpy(&bv[q], r[q] + j, sizeof(V));
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      V acc;
      std::memcpy(&acc, c + i * n + j, sizeof(V));
#pragma GCC unroll 4
      for (int q = 0; q < R; ++q) acc += as[i][q] * bv[q];
      std::memcpy(c + i * n + j, &acc, sizeof(V));
    }
  }
  for (int64_t j = vec_end; j < j1; ++j)
    for (int i = 0; i < M; ++i)
      for (int q = 0; q < R; ++q) c[i * n + j] += av[i][q] * r[q][j];
}

// C[0:M, j0:j1] = A @ B[:, j0:j1], B's rows contiguous (column stride 1): B's rows four at a
// time scaled into the chunk of C's rows.
template <typename T, typename V, int M>
GENESIS_GEMM_INLINE void few_rows_by_rows(const Problem<T>& P, const T* a, const T* b, T* c,
                                          int64_t j0, int64_t j1) {
  for (int i = 0; i < M; ++i) std::memset(c + i * P.n + j0, 0, sizeof(T) * (j1 - j0));
  int64_t p = 0;
  for (; p + 4 <= P.k; p += 4) add_rows<T, V, M, 4>(P, a, b, c, p, j0, j1);
  for (; p < P.k; ++p) add_rows<T, V, M, 1>(P, a, b, c, p, j0, j1);
}

template <typename T, typename V>
GENESIS_GEMM_INLINE T lanes_sum(V v) {
  constexpr int W = sizeof(V) / sizeof(T);
  T lane[W];
  std::memcpy(lane, &v, sizeof(V));
  T s = 0;
  for (int l = 0; l < W; ++l) s += lane[l];
  return s;
}

// V's items from B's items at p: loaded, or for bfloat16 bits (uint16_t, only under AVX-512)
// widened to float32 exactly; and one item alone.
typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));

template <typename V, typename TB>
GENESIS_GEMM_INLINE V load_items(const TB* p) {
  V v;
  if constexpr (std::is_same_v<TB, uint16_t>) {  // sixteen bfloat16 items, under AVX-512
    static_assert(sizeof(V) == sizeof(u32x16));
    u16x16 h;
    std::memcpy(&h, p, sizeof(h));
    const u32x16 w = __builtin_convertvector(h, u32x16) << 16;
    std::memcpy(&v, &w, sizeof(v));
  } else {
    std::memcpy(&v, p, sizeof(V));
  }
  return v;
}
template <typename T, typename TB>
GENESIS_GEMM_INLINE T item(TB x) {
  if constexpr (std::is_same_v<TB, uint16_t>)
    return bfloat16_bits_to_float(x);
  else
    return x;
}

// C[0:M, j0:j1] = A @ B[:, j0:j1] (C's row stride n), B's columns contiguous (column stride cs)
// and A's rows contiguous (a: M rows of k items, row stride ar): dot products, four columns
// against every row at once, sums in T; a bfloat16 C (Out = uint16_t) gets each sum rounded.
template <typename T, typename TB, typename Out, typename V, int M>
GENESIS_GEMM_INLINE void dot_columns(int64_t k, int64_t cs, int64_t n, const T* a, int64_t ar,
                                     const TB* b, Out* c, int64_t j0, int64_t j1) {
  constexpr int W = sizeof(V) / sizeof(T);
  const int64_t vec_k = k / W * W;
  for (int64_t j = j0; j < j1; j += 4) {
    const int cols = static_cast<int>(std::min<int64_t>(4, j1 - j));
    const TB* col[4];
    for (int q = 0; q < 4; ++q) col[q] = b + (j + std::min(q, cols - 1)) * cs;
    V acc[M][4] = {};
    for (int64_t p = 0; p < vec_k; p += W) {
      V bv[4], av[M];
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) bv[q] = load_items<V>(col[q] + p);
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i) std::memcpy(&av[i], a + i * ar + p, sizeof(V));
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i)
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) acc[i][q] += av[i] * bv[q];
    }
    for (int i = 0; i < M; ++i)
      for (int q = 0; q < cols; ++q) {
        T sum = lanes_sum<T>(acc[i][q]);
        for (int64_t p = vec_k; p < k; ++p) sum += a[i * ar + p] * item<T>(col[q][p]);
        if constexpr (std::is_same_v<Out, T>)
          c[i * n + j + q] = sum;
        else
          c[i * n + j + q] = float_to_bfloat16_bits(sum);
      }
  }
}

template <typename T, typename V, int M>
GENESIS_GEMM_INLINE void few_rows_m(const Problem<T>& P, int64_t bi, int64_t r0, int64_t j0,
                                    int64_t j1, T* scratch) {
  const T* a = P.a + bi * P.sa[0] + r0 * P.sa[1];
  const T* b = P.b + bi * P.sb[0];
  T* c = P.c + (bi * P.m + r0) * P.n;
  if (P.sb[2] == 1) return few_rows_by_rows<T, V, M>(P, a, b, c, j0, j1);
  int64_t ar = P.sa[1];
  if (P.sa[2] != 1) {  // A's rows gathered contiguous
    for (int i = 0; i < M; ++i)
      for (int64_t p = 0; p < P.k; ++p) scratch[i * P.k + p] = a[i * P.sa[1] + p * P.sa[2]];
    a = scratch, ar = P.k;
  }
  dot_columns<T, T, T, V, M>(P.k, P.sb[2], P.n, a, ar, b, c, j0, j1);
}

// Columns [j0, j1) of batch item bi's C, for m <= kFewRows (scratch: m x k items).
template <typename T, typename V>
GENESIS_GEMM_INLINE void few_rows(const Problem<T>& P, int64_t bi, int64_t j0, int64_t j1,
                                  T* scratch) {
  for (int64_t r0 = 0; r0 < P.m; r0 += 4) {  // groups of four rows, each one read of B's chunk
    switch (std::min<int64_t>(4, P.m - r0)) {
      case 1:
        few_rows_m<T, V, 1>(P, bi, r0, j0, j1, scratch);
        break;
      case 2:
        few_rows_m<T, V, 2>(P, bi, r0, j0, j1, scratch);
        break;
      case 3:
        few_rows_m<T, V, 3>(P, bi, r0, j0, j1, scratch);
        break;
      default:
        few_rows_m<T, V, 4>(P, bi, r0, j0, j1, scratch);
        break;
    }
  }
}

template <typename T, typename Out = T>
using TileFn = void (*)(const Problem<T, Out>&, int64_t, int64_t, int64_t, int64_t, int64_t,
                        int64_t, T*, T*);
template <typename T>
using FewRowsFn = void (*)(const Problem<T>&, int64_t, int64_t, int64_t, T*);

template <typename T, typename Out = T>
struct Kernel {
  TileFn<T, Out> run;
  int mr, nr, kc;
  FewRowsFn<T> few = nullptr;  // Note [Products of a few rows]; none for the tile unit
};

// Register budgets: MR x NV accumulators + NV B vectors + 1 broadcast fit the 32 zmm (AVX-512)
// or 16 ymm/xmm registers. KC keeps a KC x NR panel of B within L1.
constexpr int kKC = 256;

void tile_base_f32(const Problem<float>& P, int64_t bi, int64_t i0, int64_t i_end, int64_t mc,
                   int64_t j0, int64_t nc, float* abuf, float* bbuf) {
  tile<float, f32x4, 6, 2, kKC>(P, bi, i0, i_end, mc, j0, nc, abuf, bbuf);
}
void tile_base_f64(const Problem<double>& P, int64_t bi, int64_t i0, int64_t i_end, int64_t mc,
                   int64_t j0, int64_t nc, double* abuf, double* bbuf) {
  tile<double, f64x2, 6, 2, kKC>(P, bi, i0, i_end, mc, j0, nc, abuf, bbuf);
}
void few_base_f32(const Problem<float>& P, int64_t bi, int64_t j0, int64_t j1, float* scratch) {
  few_rows<float, f32x4>(P, bi, j0, j1, scratch);
}
void few_base_f64(const Problem<double>& P, int64_t bi, int64_t j0, int64_t j1, double* scratch) {
  few_rows<double, f64x2>(P, bi, j0, j1, scratch);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GENESIS_GEMM_X86 1
__attribute__((target("avx2,fma"))) void tile_avx2_f32(const Problem<float>& P, int64_t bi,
                                                       int64_t i0, int64_t i_end, int64_t mc,
                                                       int64_t j0, int64_t nc, float* abuf,
                                                       float* bbuf) {
  tile<float, f32x8, 6, 2, kKC>(P, bi, i0, i_end, mc, j0, nc, abuf, bbuf);
}
__attribute__((target("avx2,fma"))) void tile_avx2_f64(const Problem<double>& P, int64_t bi,
                                                       int64_t i0, int64_t i_end, int64_t mc,
                                                       int64_t j0, int64_t nc, double* abuf,
                                                       double* bbuf) {
  tile<double, f64x4, 6, 2, kKC>(P, bi, i0, i_end, mc, j0, nc, abuf, bbuf);
}
__attribute__((target("avx512f,avx2,fma"))) void tile_avx512_f32(const Problem<float>& P,
                                                                 int64_t bi, int64_t i0,
                                                                 int64_t i_end, int64_t mc,
                                                                 int64_t j0, int64_t nc,
                                                                 float* abuf, float* bbuf) {
  tile<float, f32x16, 12, 2, kKC>(P, bi, i0, i_end, mc, j0, nc, abuf, bbuf);
}
__attribute__((target("avx512f,avx2,fma"))) void tile_avx512_f64(const Problem<double>& P,
                                                                 int64_t bi, int64_t i0,
                                                                 int64_t i_end, int64_t mc,
                                                                 int64_t j0, int64_t nc,
                                                                 double* abuf, double* bbuf) {
  tile<double, f64x8, 12, 2, kKC>(P, bi, i0, i_end, mc, j0, nc, abuf, bbuf);
}
__attribute__((target("avx2,fma"))) void few_avx2_f32(const Problem<float>& P, int64_t bi,
                                                      int64_t j0, int64_t j1, float* scratch) {
  few_rows<float, f32x8>(P, bi, j0, j1, scratch);
}
__attribute__((target("avx2,fma"))) void few_avx2_f64(const Problem<double>& P, int64_t bi,
                                                      int64_t j0, int64_t j1, double* scratch) {
  few_rows<double, f64x4>(P, bi, j0, j1, scratch);
}
__attribute__((target("avx512f,avx2,fma"))) void few_avx512_f32(const Problem<float>& P, int64_t bi,
                                                                int64_t j0, int64_t j1,
                                                                float* scratch) {
  few_rows<float, f32x16>(P, bi, j0, j1, scratch);
}
__attribute__((target("avx512f,avx2,fma"))) void few_avx512_f64(const Problem<double>& P,
                                                                int64_t bi, int64_t j0, int64_t j1,
                                                                double* scratch) {
  few_rows<double, f64x8>(P, bi, j0, j1, scratch);
}
#endif

// Note [bfloat16 products on AMX]: on CPUs with AMX (Sapphire Rapids and later), bfloat16
// products run on the tile unit: TDPBF16PS adds a 16 x 32 A tile times a 32 x 16 B tile (k in
// pairs) into a 16 x 16 float32 tile, exact products and float32 sums (denormal inputs read as
// zero, the instruction's fixed rule; PyTorch's oneDNN runs the same instruction). The
// micro-kernel keeps a 32 x 32 block of C in four tiles and takes per 32 k two A tiles and two B
// tiles from the packs: A's 32 rows as [k block][row][32 k], B's 32 columns as [k pair][column]
// [2], both zero padded to whole blocks of 32 k. C accumulates in float32 (the caller rounds to
// bfloat16 once). Linux grants a process the tile state on request (arch_prctl); without AMX or
// the grant, the caller widens both operands to float32 and runs the float32 GEMM. vdpbf16ps
// (AVX512-BF16) ran 12 x 32 blocks at 154 GFLOP/s on the 2-core VM, no faster than that path.
#if defined(GENESIS_GEMM_X86) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    __GNUC__ >= 11
#define GENESIS_GEMM_AMX 1
#define GENESIS_AMX_TARGET __attribute__((target("amx-tile,amx-bf16,avx512f")))
constexpr int kAmxMR = 32, kAmxNR = 32, kAmxKC = 512, kAmxK = 32;  // KC: whole blocks of 32 k

// A block (mc x kc) as 32-row panels, each [k block][row][32 k], zero padded.
GENESIS_GEMM_INLINE void pack_a_blocks(uint16_t* dst, const uint16_t* a, int64_t rs, int64_t cs,
                                       int64_t mc, int64_t kc) {
  const int64_t blocks = (kc + kAmxK - 1) / kAmxK;
  for (int64_t i0 = 0; i0 < mc; i0 += kAmxMR, dst += kAmxMR * kAmxK * blocks) {
    const int64_t rows = std::min<int64_t>(kAmxMR, mc - i0);
    for (int64_t q = 0; q < blocks; ++q) {
      const int64_t depth = std::min<int64_t>(kAmxK, kc - q * kAmxK);
      uint16_t* out = dst + q * kAmxMR * kAmxK;
      for (int64_t i = 0; i < kAmxMR; ++i, out += kAmxK) {
        const uint16_t* src = a + (i0 + i) * rs + q * kAmxK * cs;
        int64_t p = 0;
        if (i < rows) {
          if (cs == 1)
            for (; p < depth; ++p) out[p] = src[p];
          else
            for (; p < depth; ++p) out[p] = src[p * cs];
        }
        for (; p < kAmxK; ++p) out[p] = 0;
      }
    }
  }
}

// A block of B (kc x nc) as 32-column panels, each [k pair][column][2], zero padded to whole
// blocks of 32 k.
GENESIS_GEMM_INLINE void pack_b_pairs(uint16_t* dst, const uint16_t* b, int64_t rs, int64_t cs,
                                      int64_t kc, int64_t nc) {
  const int64_t pairs = (kc + kAmxK - 1) / kAmxK * (kAmxK / 2);
  for (int64_t j0 = 0; j0 < nc; j0 += kAmxNR, dst += 2 * kAmxNR * pairs) {
    const uint16_t* src = b + j0 * cs;
    const int64_t cols = std::min<int64_t>(kAmxNR, nc - j0);
    if (rs == 1 && kc % 2 == 0) {  // column-major B (a Linear's weight.T): a pair is one word
      const int64_t full = kc / 2;
      for (int64_t j = 0; j < kAmxNR; ++j)
        for (int64_t q = 0; q < full; ++q) {
          uint32_t word = 0;
          if (j < cols) std::memcpy(&word, src + j * cs + 2 * q, sizeof(word));
          std::memcpy(dst + 2 * (kAmxNR * q + j), &word, sizeof(word));
        }
      std::memset(dst + 2 * kAmxNR * full, 0, sizeof(uint16_t) * 2 * kAmxNR * (pairs - full));
      continue;
    }
    for (int64_t q = 0; q < pairs; ++q) {
      uint16_t* out = dst + 2 * kAmxNR * q;
      const int64_t p = 2 * q;
      const uint16_t* r0 = src + p * rs;
      const uint16_t* r1 = r0 + rs;
      if (cols == kAmxNR && cs == 1 && p + 1 < kc) {
        for (int j = 0; j < kAmxNR; ++j) {
          out[2 * j] = r0[j];
          out[2 * j + 1] = r1[j];
        }
        continue;
      }
      for (int64_t j = 0; j < kAmxNR; ++j) {
        out[2 * j] = j < cols && p < kc ? r0[j * cs] : uint16_t(0);
        out[2 * j + 1] = j < cols && p + 1 < kc ? r1[j * cs] : uint16_t(0);
      }
    }
  }
}

struct alignas(64) TileConfig {
  uint8_t palette, start_row, reserved[14];
  uint16_t bytes_per_row[16];
  uint8_t rows[16];
};

// Tiles 0-3: C's four 16 x 16 blocks; 4, 5: A's two 16-row halves; 6, 7: B's two 16-column
// halves. Every tile is 16 rows of 64 bytes.
GENESIS_AMX_TARGET void configure_tiles() {
  TileConfig config{};
  config.palette = 1;
  for (int t = 0; t < 8; ++t) {
    config.rows[t] = 16;
    config.bytes_per_row[t] = 64;
  }
  _tile_loadconfig(&config);
}

// C[0:m, 0:n] (row stride ldc) = or += a 32-row A panel @ a 32-column B panel over `blocks` x 32 k;
// a bfloat16 C (Out = uint16_t, never added to) receives the sums rounded to nearest even.
template <typename Out>
GENESIS_GEMM_INLINE GENESIS_AMX_TARGET void micro_amx(int64_t blocks, const uint16_t* a,
                                                      const uint16_t* b, Out* c, int64_t ldc,
                                                      bool add, int64_t m, int64_t n) {
  alignas(64) float tmp[kAmxMR][kAmxNR];
  const bool whole = std::is_same_v<Out, float> && m == kAmxMR && n == kAmxNR;
  float* dst = whole ? reinterpret_cast<float*>(c) : &tmp[0][0];
  const int64_t stride = (whole ? ldc : kAmxNR) * static_cast<int64_t>(sizeof(float));
  if (add && whole) {
    _tile_loadd(0, dst, stride);
    _tile_loadd(1, dst + 16, stride);
    _tile_loadd(2, dst + 16 * (stride / 4), stride);
    _tile_loadd(3, dst + 16 * (stride / 4) + 16, stride);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  for (int64_t q = 0; q < blocks; ++q, a += kAmxMR * kAmxK, b += kAmxNR * kAmxK) {
    _tile_loadd(4, a, kAmxK * 2);
    _tile_loadd(5, a + 16 * kAmxK, kAmxK * 2);
    _tile_loadd(6, b, kAmxNR * 4);
    _tile_loadd(7, b + 32, kAmxNR * 4);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, dst, stride);
  _tile_stored(1, dst + 16, stride);
  _tile_stored(2, dst + 16 * (stride / 4), stride);
  _tile_stored(3, dst + 16 * (stride / 4) + 16, stride);
  if (whole) return;
  if constexpr (std::is_same_v<Out, float>) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = add ? c[i * ldc + j] + tmp[i][j] : tmp[i][j];
  } else {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = float_to_bfloat16_bits(tmp[i][j]);
  }
}

// tile() for bfloat16 operands and a float32 C, or a bfloat16 one where k is one slice (the
// same loop order).
template <typename Out>
GENESIS_AMX_TARGET void tile_amx(const Problem<uint16_t, Out>& P, int64_t bi, int64_t i0,
                                 int64_t i_end, int64_t mc, int64_t j0, int64_t nc, uint16_t* abuf,
                                 uint16_t* bbuf) {
  configure_tiles();  // every call: other code on this thread (oneDNN's) releases the tiles
  const uint16_t* b = P.b + bi * P.sb[0] + j0 * P.sb[2];
  for (int64_t p0 = 0; p0 < P.k; p0 += kAmxKC) {
    const int64_t kc = std::min<int64_t>(kAmxKC, P.k - p0), blocks = (kc + kAmxK - 1) / kAmxK;
    pack_b_pairs(bbuf, b + p0 * P.sb[1], P.sb[1], P.sb[2], kc, nc);
    for (int64_t ib = i0; ib < i_end; ib += mc) {
      const int64_t rows = std::min<int64_t>(mc, i_end - ib);
      const uint16_t* a = P.a + bi * P.sa[0] + ib * P.sa[1];
      Out* c = P.c + (bi * P.m + ib) * P.n + j0;
      pack_a_blocks(abuf, a + p0 * P.sa[2], P.sa[1], P.sa[2], rows, kc);
      for (int64_t jr = 0; jr < nc; jr += kAmxNR)
        for (int64_t ir = 0; ir < rows; ir += kAmxMR)
          micro_amx<Out>(blocks, abuf + ir * kAmxK * blocks, bbuf + jr * kAmxK * blocks,
                         c + ir * P.n + jr, P.n, p0 > 0, std::min<int64_t>(kAmxMR, rows - ir),
                         std::min<int64_t>(kAmxNR, nc - jr));
    }
  }
  _tile_release();  // the thread's tile state back to its initial (cheaply saved) form
}

// Whether this process may use the tile unit: the CPU has it and Linux grants its state (asked
// once).
bool amx_usable() {
  static const bool usable = [] {
    if (cpu_isa() != Isa::Avx512 || !__builtin_cpu_supports("amx-bf16")) return false;
    constexpr long kRequestPermission = 0x1023, kTileData = 18;  // ARCH_REQ_XCOMP_PERM, XTILEDATA
    return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
  }();
  return usable;
}

// Note [bfloat16 products by pairs]: CPUs with AVX512-BF16 but no tile unit (AMD's Zen 4, say)
// multiply bfloat16 with VDPBF16PS, which adds the products of a pair of k to each of 16 float32
// sums. The micro-kernel keeps a 12 x 32 block of C in 24 registers and per pair of k
// broadcasts each row's pair of A (packed [k pair][row][2]) against B's 32 columns (packed
// [k pair][column][2], as for the tile unit): twice the float32 GEMM's multiply-adds per
// instruction, where widening both operands to float32 ran the float32 GEMM (1024^3 at 5.1-5.2
// ms against torch's 2.3 on the 2-core Zen 4 VM). The instruction's rules are the tile unit's:
// denormal inputs read as zero, sums rounded to nearest even.
#define GENESIS_DPBF16_TARGET __attribute__((target("avx512f,avx512bf16")))
constexpr int kPairMR = 12, kPairNR = 32, kPairKC = 512;

bool pairs_usable() {
  static const bool usable = cpu_isa() == Isa::Avx512 && __builtin_cpu_supports("avx512bf16") != 0;
  return usable;
}

// A block (mc x kc) as 12-row panels, each [k pair][row][2], zero padded.
GENESIS_GEMM_INLINE void pack_a_pairs(uint16_t* dst, const uint16_t* a, int64_t rs, int64_t cs,
                                      int64_t mc, int64_t kc) {
  const int64_t pairs = (kc + 1) / 2;
  for (int64_t i0 = 0; i0 < mc; i0 += kPairMR, dst += 2 * kPairMR * pairs) {
    const int64_t rows = std::min<int64_t>(kPairMR, mc - i0);
    int64_t q0 = 0;  // pairs [0, q0) of the first 8 rows packed through 8 x 8 word transposes
    if (cs == 1 && rs % 2 == 0 && rows == kPairMR) {
#if defined(GENESIS_GEMM_TRANSPOSE8)
      q0 = transpose_runs(reinterpret_cast<float*>(dst), kPairMR,
                          reinterpret_cast<const float*>(a + i0 * rs), rs / 2, 8, kc / 2);
#endif
      // the other rows' whole pairs a word at a time
      for (int64_t i = 0; i < kPairMR; ++i)
        for (int64_t q = i < 8 ? q0 : 0; q < kc / 2; ++q)
          std::memcpy(dst + (q * kPairMR + i) * 2, a + (i0 + i) * rs + 2 * q, 4);
      q0 = kc / 2;
    }
    for (int64_t i = 0; i < kPairMR; ++i) {
      const uint16_t* src = a + (i0 + i) * rs;
      for (int64_t p = 2 * q0; p < 2 * pairs; ++p)
        dst[(p / 2 * kPairMR + i) * 2 + p % 2] = i < rows && p < kc ? src[p * cs] : uint16_t(0);
    }
  }
}

// C[0:m, 0:n] (row stride ldc) = or += a packed 12-row A panel @ a packed 32-column B panel
// over `pairs` pairs of k; a bfloat16 C (never added to) receives the sums rounded.
template <typename Out>
GENESIS_GEMM_INLINE GENESIS_DPBF16_TARGET void micro_pairs(int64_t pairs, const uint16_t* a,
                                                           const uint16_t* b, Out* c, int64_t ldc,
                                                           bool add, int64_t m, int64_t n) {
  __m512 acc[kPairMR][2];
#pragma GCC unroll 12
  for (int i = 0; i < kPairMR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t q = 0; q < pairs; ++q, a += 2 * kPairMR, b += 2 * kPairNR) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(b + kPairNR);
#pragma GCC unroll 12
    for (int i = 0; i < kPairMR; ++i) {
      int32_t pair;
      std::memcpy(&pair, a + 2 * i, sizeof(pair));
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(pair);
      acc[i][0] = _mm512_dpbf16_ps(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbf16_ps(acc[i][1], ai, b1);
    }
  }
  if (std::is_same_v<Out, float> && m == kPairMR && n == kPairNR) {
    float* dst = reinterpret_cast<float*>(c);
#pragma GCC unroll 12
    for (int i = 0; i < kPairMR; ++i)
      for (int v = 0; v < 2; ++v) {
        float* row = dst + i * ldc + 16 * v;
        _mm512_storeu_ps(row, add ? _mm512_add_ps(acc[i][v], _mm512_loadu_ps(row)) : acc[i][v]);
      }
    return;
  }
  alignas(64) float tmp[kPairMR][kPairNR];
  for (int i = 0; i < kPairMR; ++i) {
    _mm512_store_ps(&tmp[i][0], acc[i][0]);
    _mm512_store_ps(&tmp[i][16], acc[i][1]);
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      if constexpr (std::is_same_v<Out, float>)
        c[i * ldc + j] = add ? c[i * ldc + j] + tmp[i][j] : tmp[i][j];
      else
        c[i * ldc + j] = float_to_bfloat16_bits(tmp[i][j]);
    }
}

// tile() for bfloat16 operands by pairs (the same loop order: an A panel swept across B's).
template <typename Out>
GENESIS_DPBF16_TARGET void tile_pairs(const Problem<uint16_t, Out>& P, int64_t bi, int64_t i0,
                                      int64_t i_end, int64_t mc, int64_t j0, int64_t nc,
                                      uint16_t* abuf, uint16_t* bbuf) {
  // segments (Note [Convolution over shifted windows]): slices end at A's, B packed by piece
  for (int64_t p0 = 0, kc; p0 < P.k; p0 += kc) {
    kc = slice_depth(P, p0, kPairKC);
    const int64_t pairs = (kc + 1) / 2;
    const int64_t b_pairs = (kc + kAmxK - 1) / kAmxK * (kAmxK / 2);  // pack_b_pairs' padding
    for (int64_t j = j0, end; j < j0 + nc; j = end) {
      end = b_piece_end(P, j, j0 + nc);
      pack_b_pairs(bbuf + (j - j0) * 2 * b_pairs,
                   P.b + bi * P.sb[0] + p0 * P.sb[1] + b_column(P, j), P.sb[1], P.sb[2], kc,
                   end - j);
    }
    for (int64_t ib = i0; ib < i_end; ib += mc) {
      const int64_t rows = std::min<int64_t>(mc, i_end - ib);
      const uint16_t* a = P.a + bi * P.sa[0] + ib * P.sa[1];
      Out* c = P.c + (bi * P.m + ib) * P.n + j0;
      pack_a_pairs(abuf, a + a_column(P, p0), P.sa[1], P.sa[2], rows, kc);
      for (int64_t ir = 0; ir < rows; ir += kPairMR)
        for (int64_t jr = 0; jr < nc; jr += kPairNR)
          micro_pairs<Out>(pairs, abuf + ir * 2 * pairs, bbuf + jr * 2 * b_pairs, c + ir * P.n + jr,
                           P.n, p0 > 0, std::min<int64_t>(kPairMR, rows - ir),
                           std::min<int64_t>(kPairNR, nc - jr));
    }
  }
}
#endif

// {tile function, MR, NR = NV * lanes, KC}, matching the instantiations above.
template <typename T>
Kernel<T> pick_kernel() {
  [[maybe_unused]] Isa isa = cpu_isa();
  if constexpr (sizeof(T) == 4) {
#ifdef GENESIS_GEMM_X86
    if (isa == Isa::Avx512) return {tile_avx512_f32, 12, 32, kKC, few_avx512_f32};
    if (isa == Isa::Avx2) return {tile_avx2_f32, 6, 16, kKC, few_avx2_f32};
#endif
    return {tile_base_f32, 6, 8, kKC, few_base_f32};
  } else {
#ifdef GENESIS_GEMM_X86
    if (isa == Isa::Avx512) return {tile_avx512_f64, 12, 16, kKC, few_avx512_f64};
    if (isa == Isa::Avx2) return {tile_avx2_f64, 6, 8, kKC, few_avx2_f64};
#endif
    return {tile_base_f64, 6, 4, kKC, few_base_f64};
  }
}

template <typename T>
const Kernel<T>& kernel() {
  static const Kernel<T> k = pick_kernel<T>();
  return k;
}

// Packing buffers, kept per thread across calls: fresh pages for every small product would cost
// more than the product.
struct Scratch {
  void* data = nullptr;
  size_t bytes = 0;
  ~Scratch() { ::operator delete(data, std::align_val_t(64)); }
  template <typename T>
  T* get(int64_t count) {
    size_t need = static_cast<size_t>(count) * sizeof(T);
    if (need > bytes) {
      ::operator delete(data, std::align_val_t(64));
      data = nullptr;
      data = ::operator new(need, std::align_val_t(64));
      bytes = need;
    }
    return static_cast<T*>(data);
  }
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Tile targets: an MC x KC block of A stays in L2 while the micro-kernel sweeps it; NC bounds
// the packed B block. Work below kMinWork multiply-adds per thread is not worth a thread.
constexpr int64_t kTargetMC = 192;
constexpr int64_t kTargetNC = 1024;
constexpr int64_t kMinWork = int64_t{1} << 18;
constexpr int64_t kFewColumns = 1024;           // a chunk of C's few rows stays in L1
constexpr int64_t kFewChunkBytes = 512 * 1024;  // and a chunk of B in L2

// The threads a product of `work` multiply-adds is worth.
int64_t threads_for(double work) {
  return std::clamp<int64_t>(static_cast<int64_t>(work / kMinWork), 1, max_threads());
}

// Note [Products of a few rows]: body(batch item, j0, j1) over chunks of C's n columns, at most
// `most` wide, as many as a multiple of the threads.
template <typename Body>
void over_column_chunks(int64_t batch, int64_t n, int64_t threads, int64_t most, const Body& body) {
  int64_t chunks = std::max(threads, ceil_div(n, most));
  chunks = std::min(ceil_div(chunks, threads) * threads, n);
  const int64_t width = ceil_div(n, chunks);
  chunks = ceil_div(n, width);
  parallel_for(batch * chunks, ceil_div(batch * chunks, threads), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t j0 = t % chunks * width;
      body(t / chunks, j0, std::min(n, j0 + width));
    }
  });
}

// The problem c = a @ b as the GEMM runs it: matrix @ vector as its transpose, c^T (1 x m) =
// b^T @ a^T, the same memory as c (the micro-kernel pads n to NR columns but m only to MR rows,
// and the few-row path takes one row).
template <typename T, typename Out>
Problem<T, Out> problem_of(Out* c, const T* a, const int64_t a_strides[3], const T* b,
                           const int64_t b_strides[3], int64_t m, int64_t n, int64_t k) {
  if (n == 1 && m > 1)
    return Problem<T, Out>{
        c, b, a, {b_strides[0], 0, b_strides[1]}, {a_strides[0], a_strides[2], a_strides[1]},
        1, m, k};
  Problem<T, Out> P{c, a, b, {}, {}, m, n, k};
  std::copy_n(a_strides, 3, P.sa);
  std::copy_n(b_strides, 3, P.sb);
  return P;
}

template <typename T, typename Out>
void run(const Problem<T, Out>& P, int64_t batch, const Kernel<T, Out>& K) {
  const int64_t m = P.m, n = P.n, k = P.k;
  if (batch == 0 || m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(P.c, 0, static_cast<size_t>(batch * m * n) * sizeof(Out));
    return;
  }
  int64_t mt = ceil_div(m, kTargetMC), nt = ceil_div(n, kTargetNC);
  // Enough tiles for every thread where the work is worth threading.
  const int64_t threads =
      threads_for(static_cast<double>(batch) * static_cast<double>(m * n) * static_cast<double>(k));
  if constexpr (std::is_same_v<T, Out>) {
    if (K.few && !P.a_k.length && !P.b_n.length && gemm_few_rows(false, m, P.sb[1], P.sb[2])) {
      // Note [Products of a few rows]: for more than four rows (two passes over each chunk of
      // B) chunks narrow enough that the second pass finds the chunk in L2.
      const int64_t budget = m > 4 ? kFewChunkBytes / static_cast<int64_t>(sizeof(T) * k) : n;
      over_column_chunks(batch, n, threads, std::clamp<int64_t>(budget, 64, kFewColumns),
                         [&](int64_t bi, int64_t j0, int64_t j1) {
                           thread_local Scratch scratch;
                           K.few(P, bi, j0, j1, scratch.get<T>(m * k));
                         });
      return;
    }
  }
  // Each tile packs its rows of A and its columns of B: cut the longer side, so that the threads
  // repeat the smaller pack (an RNN step's 32 x 1024 product repeated all of B cut by rows).
  while (batch * mt * nt < threads) {
    bool rows_ok = ceil_div(m, mt + 1) >= K.mr, cols_ok = ceil_div(n, nt + 1) >= K.nr;
    if (cols_ok && (!rows_ok || ceil_div(n, nt) > ceil_div(m, mt)))
      ++nt;
    else if (rows_ok)
      ++mt;
    else
      break;
  }
  // A few tiles that the threads cannot share evenly leave a thread idle for a whole tile (3
  // tiles on 2 threads: two thirds of the machine): more row blocks, while rows allow.
  while (threads > 1 && batch * mt * nt % threads != 0 && batch * mt * nt < 8 * threads &&
         ceil_div(m, mt + 1) >= K.mr)
    ++mt;
  // Note [Tiles cut at whole panels]: tile t of mt holds panels [P t / mt, P (t + 1) / mt) of
  // the P = m / MR row panels (columns alike), so tiles differ by at most one panel. Tiles of one
  // size mc rounded up to MR left the last one short: 1024 rows as 180, 180, ..., 124 gave one
  // of two threads 516 rows and the other 484, idle a tenth of the product.
  const int64_t row_panels = ceil_div(m, K.mr), col_panels = ceil_div(n, K.nr);
  mt = std::min(mt, row_panels);
  nt = std::min(nt, col_panels);
  const int64_t mc = ceil_div(row_panels, mt) * K.mr, nc = ceil_div(col_panels, nt) * K.nr;
  auto row_start = [&](int64_t t) { return std::min(m, row_panels * t / mt * K.mr); };
  auto col_start = [&](int64_t t) { return std::min(n, col_panels * t / nt * K.nr); };
  int64_t tiles = batch * mt * nt;
  int64_t grain = std::max<int64_t>(1, kMinWork / std::max<int64_t>(1, mc * nc * k));
  parallel_for(tiles, grain, [&](int64_t begin, int64_t end) {
    thread_local Scratch a_scratch, b_scratch;
    T* abuf = a_scratch.get<T>(mc * K.kc);
    T* bbuf = b_scratch.get<T>(nc * K.kc);
    // Tiles run in (batch, column block, row block) order: a thread's consecutive tiles of one
    // column block share each packed slice of B.
    for (int64_t t = begin; t < end;) {
      int64_t column_block = t / mt, bi = column_block / nt, tj = column_block % nt;
      int64_t last = std::min(end, (column_block + 1) * mt);
      int64_t i0 = row_start(t % mt), i_end = row_start((last - 1) % mt + 1);
      int64_t j0 = col_start(tj);
      K.run(P, bi, i0, i_end, mc, j0, col_start(tj + 1) - j0, abuf, bbuf);
      t = last;
    }
  });
}

template <typename T, typename Out>
void gemm_impl(Out* c, const T* a, const int64_t a_strides[3], const T* b,
               const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k,
               const Kernel<T, Out>& K) {
  run(problem_of(c, a, a_strides, b, b_strides, m, n, k), batch, K);
}

}  // namespace

bool gemm_few_rows(bool bfloat16, int64_t m, int64_t b_row_stride, int64_t b_col_stride) {
  if (bfloat16) {  // 8 rows took 255 us against the tile unit's 196
#ifdef GENESIS_GEMM_X86
    return m <= 4 && b_row_stride == 1 && cpu_isa() == Isa::Avx512;
#else
    return false;
#endif
  }
  // Row-major B's rows in two passes of four, or cut narrow for L2, ran slower than the blocked
  // path (5 x 768 @ 768 x 3072: 500 us against 383).
  return (m <= 4 && b_col_stride == 1) || (m <= kGemmFewRows && b_row_stride == 1);
}

void gemm(float* c, const float* a, const int64_t a_strides[3], const float* b,
          const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k) {
  gemm_impl(c, a, a_strides, b, b_strides, batch, m, n, k, kernel<float>());
}

void gemm(double* c, const double* a, const int64_t a_strides[3], const double* b,
          const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k) {
  gemm_impl(c, a, a_strides, b, b_strides, batch, m, n, k, kernel<double>());
}

namespace {

template <typename T, typename Out>
void run_segmented(Out* c, const T* a, const int64_t a_strides[3], GemmSegments a_k, const T* b,
                   const int64_t b_strides[3], GemmSegments b_n, int64_t batch, int64_t m,
                   int64_t n, int64_t k, const Kernel<T, Out>& K) {
  Problem<T, Out> P{c, a, b, {}, {}, m, n, k, a_k, b_n};
  std::copy_n(a_strides, 3, P.sa);
  std::copy_n(b_strides, 3, P.sb);
  GENESIS_CHECK(b_n.length % K.nr == 0, "gemm_segmented", "B's segments of ", b_n.length,
                " columns are not whole panels of ", K.nr);
  run(P, batch, K);
}

}  // namespace

void gemm_segmented(float* c, const float* a, const int64_t a_strides[3], GemmSegments a_k,
                    const float* b, const int64_t b_strides[3], GemmSegments b_n, int64_t batch,
                    int64_t m, int64_t n, int64_t k) {
  run_segmented(c, a, a_strides, a_k, b, b_strides, b_n, batch, m, n, k, kernel<float>());
}

void gemm_segmented(double* c, const double* a, const int64_t a_strides[3], GemmSegments a_k,
                    const double* b, const int64_t b_strides[3], GemmSegments b_n, int64_t batch,
                    int64_t m, int64_t n, int64_t k) {
  run_segmented(c, a, a_strides, a_k, b, b_strides, b_n, batch, m, n, k, kernel<double>());
}

int64_t gemm_segment_panel(int element_bytes) {
#ifdef GENESIS_GEMM_AMX
  if (element_bytes == 2) return kPairNR;
#endif
  return element_bytes == 8 ? kernel<double>().nr : kernel<float>().nr;
}

bool gemm_segmented_bfloat16_usable() {
#ifdef GENESIS_GEMM_AMX
  return pairs_usable();
#else
  return false;
#endif
}

void gemm_segmented_bfloat16(float* c, const uint16_t* a, const int64_t a_strides[3],
                             GemmSegments a_k, const uint16_t* b, const int64_t b_strides[3],
                             GemmSegments b_n, int64_t batch, int64_t m, int64_t n, int64_t k) {
#ifdef GENESIS_GEMM_AMX
  GENESIS_CHECK(pairs_usable(), "gemm_segmented", "bfloat16 products need AVX512-BF16");
  run_segmented(c, a, a_strides, a_k, b, b_strides, b_n, batch, m, n, k,
                Kernel<uint16_t, float>{tile_pairs<float>, kPairMR, kPairNR, kPairKC});
#else
  (void)c, (void)a, (void)a_strides, (void)a_k, (void)b, (void)b_strides, (void)b_n, (void)batch,
      (void)m, (void)n, (void)k;
  GENESIS_CHECK(false, "gemm_segmented", "bfloat16 products need AVX512-BF16");
#endif
}

namespace {

// Both bfloat16 entry points: false, computing nothing, without the tile unit, or for a bfloat16
// C whose k would leave the tiles in more than one slice.
#ifdef GENESIS_GEMM_X86

// Note [Products of a few rows] for bfloat16 operands by a column-major B (a Linear's weight):
// C[0:M, j0:j1] from A's rows widened once (a: M x k float32) and B's columns widened as they
// stream, float32 sums of exact products, rounded to bfloat16 once for a bfloat16 C. The tile
// unit's 32-row tiles did 32 rows of work and packed all of B for one row (batch-1 Linear
// 768 -> 3072: 460 us against torch's 163).
template <typename Out, int M>
__attribute__((target("avx512f,avx512bw"))) void few_bf16_columns(const Problem<uint16_t, Out>& P,
                                                                  const float* a, const uint16_t* b,
                                                                  Out* c, int64_t j0, int64_t j1) {
  dot_columns<float, uint16_t, Out, f32x16, M>(P.k, P.sb[2], P.n, a, P.k, b, c, j0, j1);
}

// Columns [j0, j1) of batch item bi, A's rows in groups of four widened into `rows` (4 x k).
template <typename Out>
void few_bf16(const Problem<uint16_t, Out>& P, int64_t bi, int64_t j0, int64_t j1, float* rows) {
  for (int64_t r0 = 0; r0 < P.m; r0 += 4) {
    const int64_t group = std::min<int64_t>(4, P.m - r0);
    const uint16_t* a = P.a + bi * P.sa[0] + r0 * P.sa[1];
    for (int64_t i = 0; i < group; ++i)
      for (int64_t p = 0; p < P.k; ++p)
        rows[i * P.k + p] = bfloat16_bits_to_float(a[i * P.sa[1] + p * P.sa[2]]);
    const uint16_t* b = P.b + bi * P.sb[0];
    Out* c = P.c + (bi * P.m + r0) * P.n;
    switch (group) {
      case 1:
        few_bf16_columns<Out, 1>(P, rows, b, c, j0, j1);
        break;
      case 2:
        few_bf16_columns<Out, 2>(P, rows, b, c, j0, j1);
        break;
      case 3:
        few_bf16_columns<Out, 3>(P, rows, b, c, j0, j1);
        break;
      default:
        few_bf16_columns<Out, 4>(P, rows, b, c, j0, j1);
        break;
    }
  }
}
#endif

// A bfloat16 product the few-row path takes (gemm_few_rows; matrix @ vector as one row);
// false, computing nothing, otherwise.
template <typename Out>
bool gemm_bf16_few_rows(Out* c, const uint16_t* a, const int64_t a_strides[3], const uint16_t* b,
                        const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n,
                        int64_t k) {
#ifdef GENESIS_GEMM_X86
  if (batch == 0 || m == 0 || n == 0 || k == 0) return false;
  const Problem<uint16_t, Out> P = problem_of(c, a, a_strides, b, b_strides, m, n, k);
  if (!gemm_few_rows(true, P.m, P.sb[1], P.sb[2])) return false;
  const int64_t threads = threads_for(static_cast<double>(batch) * static_cast<double>(P.m * P.n) *
                                      static_cast<double>(k));
  over_column_chunks(batch, P.n, threads, kFewColumns, [&](int64_t bi, int64_t j0, int64_t j1) {
    thread_local Scratch scratch;
    few_bf16<Out>(P, bi, j0, j1, scratch.get<float>(4 * k));
  });
  return true;
#else
  (void)c, (void)a, (void)a_strides, (void)b, (void)b_strides, (void)batch, (void)m, (void)n,
      (void)k;
  return false;
#endif
}

template <typename Out>
bool gemm_on_tiles(Out* c, const uint16_t* a, const int64_t a_strides[3], const uint16_t* b,
                   const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k) {
  if (gemm_bf16_few_rows(c, a, a_strides, b, b_strides, batch, m, n, k)) return true;
#ifdef GENESIS_GEMM_AMX
  // a bfloat16 C holds sums of one slice of k only
  if (amx_usable()) {
    if (std::is_same_v<Out, uint16_t> && k > kAmxKC) return false;
    gemm_impl(c, a, a_strides, b, b_strides, batch, m, n, k,
              Kernel<uint16_t, Out>{tile_amx<Out>, kAmxMR, kAmxNR, kAmxKC});
    return true;
  }
  if (!pairs_usable() || (std::is_same_v<Out, uint16_t> && k > kPairKC)) return false;
  gemm_impl(c, a, a_strides, b, b_strides, batch, m, n, k,
            Kernel<uint16_t, Out>{tile_pairs<Out>, kPairMR, kPairNR, kPairKC});
  return true;
#else
  (void)c, (void)a, (void)a_strides, (void)b, (void)b_strides, (void)batch, (void)m, (void)n,
      (void)k;
  return false;
#endif
}

}  // namespace

bool gemm_bfloat16(float* c, const uint16_t* a, const int64_t a_strides[3], const uint16_t* b,
                   const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k) {
  return gemm_on_tiles(c, a, a_strides, b, b_strides, batch, m, n, k);
}

bool gemm_bfloat16_rounded(uint16_t* c, const uint16_t* a, const int64_t a_strides[3],
                           const uint16_t* b, const int64_t b_strides[3], int64_t batch, int64_t m,
                           int64_t n, int64_t k) {
  return gemm_on_tiles(c, a, a_strides, b, b_strides, batch, m, n, k);
}

}  // namespace genesis::cpu

#include "cpu/gemm.h"

#include <algorithm>
#include <cstring>
#include <new>

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

template <typename T>
struct Problem {
  T* c;
  const T* a;
  const T* b;
  int64_t sa[3], sb[3];  // {batch, row, col} element strides
  int64_t m, n, k;
};

// A block of A (mc x kc, strides rs/cs) as MR-row panels, each stored k-major (MR values per k).
template <typename T, int MR>
GENESIS_GEMM_INLINE void pack_a(T* dst, const T* a, int64_t rs, int64_t cs, int64_t mc,
                                int64_t kc) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR, dst += MR * kc) {
    const T* src = a + i0 * rs;
    int64_t rows = std::min<int64_t>(MR, mc - i0);
    if (rows == MR) {
      for (int64_t p = 0; p < kc; ++p)
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

// C[0:m, 0:n] (row stride ldc) = or += packed A panel @ packed B panel, m <= MR, n <= NR.
template <typename T, typename V, int MR, int NV>
GENESIS_GEMM_INLINE void micro_kernel(int64_t kc, const T* __restrict a, const T* __restrict b,
                                      T* c, int64_t ldc, bool add, int64_t m, int64_t n) {
  constexpr int W = sizeof(V) / sizeof(T);
  constexpr int NR = NV * W;
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = V{};
  for (int64_t p = 0; p < kc; ++p, a += MR, b += NR) {
    V bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) std::memcpy(&bv[v], b + v * W, sizeof(V));
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] += a[i] * bv[v];
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

// Tiles of C sharing a column block: rows [i0, i_end) in blocks of mc, columns [j0, j0 + nc) of
// batch item bi. Each KC-deep slice of B is packed once for all the row blocks (Goto's loop
// order: B's panel stays in L2/L3 while A's blocks stream through). The buffers hold mc x KC and
// KC x nc values (mc, nc rounded up to MR, NR).
template <typename T, typename V, int MR, int NV, int KC>
GENESIS_GEMM_INLINE void tile(const Problem<T>& P, int64_t bi, int64_t i0, int64_t i_end,
                              int64_t mc, int64_t j0, int64_t nc, T* abuf, T* bbuf) {
  constexpr int NR = NV * static_cast<int>(sizeof(V) / sizeof(T));
  const T* b = P.b + bi * P.sb[0] + j0 * P.sb[2];
  for (int64_t p0 = 0; p0 < P.k; p0 += KC) {
    int64_t kc = std::min<int64_t>(KC, P.k - p0);
    pack_b<T, NR>(bbuf, b + p0 * P.sb[1], P.sb[1], P.sb[2], kc, nc);
    for (int64_t ib = i0; ib < i_end; ib += mc) {
      int64_t rows = std::min<int64_t>(mc, i_end - ib);
      const T* a = P.a + bi * P.sa[0] + ib * P.sa[1];
      T* c = P.c + (bi * P.m + ib) * P.n + j0;
      pack_a<T, MR>(abuf, a + p0 * P.sa[2], P.sa[1], P.sa[2], rows, kc);
      for (int64_t jr = 0; jr < nc; jr += NR)
        for (int64_t ir = 0; ir < rows; ir += MR)
          micro_kernel<T, V, MR, NV>(kc, abuf + ir * kc, bbuf + jr * kc, c + ir * P.n + jr, P.n,
                                     p0 > 0, std::min<int64_t>(MR, rows - ir),
                                     std::min<int64_t>(NR, nc - jr));
    }
  }
}

template <typename T>
using TileFn = void (*)(const Problem<T>&, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, T*,
                        T*);

template <typename T>
struct Kernel {
  TileFn<T> run;
  int mr, nr, kc;
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
#endif

// {tile function, MR, NR = NV * lanes, KC}, matching the instantiations above.
template <typename T>
Kernel<T> pick_kernel() {
  [[maybe_unused]] Isa isa = cpu_isa();
  if constexpr (sizeof(T) == 4) {
#ifdef GENESIS_GEMM_X86
    if (isa == Isa::Avx512) return {tile_avx512_f32, 12, 32, kKC};
    if (isa == Isa::Avx2) return {tile_avx2_f32, 6, 16, kKC};
#endif
    return {tile_base_f32, 6, 8, kKC};
  } else {
#ifdef GENESIS_GEMM_X86
    if (isa == Isa::Avx512) return {tile_avx512_f64, 12, 16, kKC};
    if (isa == Isa::Avx2) return {tile_avx2_f64, 6, 8, kKC};
#endif
    return {tile_base_f64, 6, 4, kKC};
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

template <typename T>
void run(const Problem<T>& P, int64_t batch) {
  const int64_t m = P.m, n = P.n, k = P.k;
  if (batch == 0 || m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(P.c, 0, static_cast<size_t>(batch * m * n) * sizeof(T));
    return;
  }
  const Kernel<T>& K = kernel<T>();
  int64_t mt = ceil_div(m, kTargetMC), nt = ceil_div(n, kTargetNC);
  // Enough tiles for every thread where the work is worth threading.
  double work = static_cast<double>(batch) * static_cast<double>(m * n) * static_cast<double>(k);
  int64_t threads = std::clamp<int64_t>(static_cast<int64_t>(work / kMinWork), 1, max_threads());
  while (batch * mt * nt < threads) {
    if (ceil_div(m, mt + 1) >= K.mr)
      ++mt;
    else if (ceil_div(n, nt + 1) >= K.nr)
      ++nt;
    else
      break;
  }
  // A few tiles that the threads cannot share evenly leave a thread idle for a whole tile (3
  // tiles on 2 threads: two thirds of the machine): more row blocks, while rows allow.
  while (threads > 1 && batch * mt * nt % threads != 0 && batch * mt * nt < 8 * threads &&
         ceil_div(m, mt + 1) >= K.mr)
    ++mt;
  int64_t mc = ceil_div(ceil_div(m, mt), K.mr) * K.mr;
  int64_t nc = ceil_div(ceil_div(n, nt), K.nr) * K.nr;
  mt = ceil_div(m, mc);
  nt = ceil_div(n, nc);
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
      int64_t i0 = (t % mt) * mc, i_end = std::min(m, ((last - 1) % mt + 1) * mc), j0 = tj * nc;
      K.run(P, bi, i0, i_end, mc, j0, std::min(nc, n - j0), abuf, bbuf);
      t = last;
    }
  });
}

template <typename T>
void gemm_impl(T* c, const T* a, const int64_t a_strides[3], const T* b, const int64_t b_strides[3],
               int64_t batch, int64_t m, int64_t n, int64_t k) {
  Problem<T> P{c, a, b, {}, {}, m, n, k};
  std::copy_n(a_strides, 3, P.sa);
  std::copy_n(b_strides, 3, P.sb);
  if (n == 1 && m > 1) {
    // Matrix @ vector: the micro-kernel pads n to NR columns but m only to MR rows, so compute
    // the transpose, c^T (1 x m) = b^T @ a^T, which is the same memory as c.
    P = Problem<T>{
        c, b, a, {b_strides[0], 0, b_strides[1]}, {a_strides[0], a_strides[2], a_strides[1]},
        1, m, k};
  }
  run(P, batch);
}

}  // namespace

void gemm(float* c, const float* a, const int64_t a_strides[3], const float* b,
          const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k) {
  gemm_impl(c, a, a_strides, b, b_strides, batch, m, n, k);
}

void gemm(double* c, const double* a, const int64_t a_strides[3], const double* b,
          const int64_t b_strides[3], int64_t batch, int64_t m, int64_t n, int64_t k) {
  gemm_impl(c, a, a_strides, b, b_strides, batch, m, n, k);
}

}  // namespace genesis::cpu

// Note [Float32 reduction kernels]
// Each kernel is written once (plain loops the compiler vectorizes, or GCC/Clang vector
// extensions where it would not) and compiled per instruction set through target attributes, as
// the GEMM micro-kernel is (Note [CPU GEMM]); the CPU picks one on first use.
//
// Column sums add whole rows into a row of float partial sums held in L1, four rows at a time,
// and fold the partials into double every kSumChunk rows: NumPy's float32 speed with a smaller
// error than its row-after-row float sum. Column arg max/min keep a value and a row per column.
//
// Row arg max/min work on blocks that stay in L1: one pass finds the extreme value (and whether
// any NaN is present) with vector max/min, a second finds the first index holding it. The
// answer's value is the element at that index, so it is bit-for-bit ArgReducer's.
#include "cpu/reduce_kernels.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "cpu/isa.h"

#if defined(__GNUC__) || defined(__clang__)
#define GENESIS_REDUCE_INLINE [[gnu::always_inline]] inline
#else
#define GENESIS_REDUCE_INLINE inline
#endif

namespace genesis::cpu {

namespace {

constexpr int64_t kSumChunk = kColumnSumRows;  // rows per float partial sum
constexpr int64_t kSumWidth = 2048;            // columns per partial sum: 8 KB of L1
constexpr int64_t kArgBlock = 4096;            // elements per two-pass arg block: 16 KB of L1

GENESIS_REDUCE_INLINE void column_sum(const float* __restrict in, int64_t rows, int64_t stride,
                                      int64_t n, double* __restrict acc) {
  alignas(64) float part[kSumWidth];
  for (int64_t c0 = 0; c0 < n; c0 += kSumWidth) {
    const int64_t w = std::min(kSumWidth, n - c0);
    for (int64_t r0 = 0; r0 < rows; r0 += kSumChunk) {
      const int64_t r1 = std::min(rows, r0 + kSumChunk);
      const float* first = in + r0 * stride + c0;
      for (int64_t i = 0; i < w; ++i) part[i] = first[i];
      int64_t k = r0 + 1;
      for (; k + 4 <= r1; k += 4) {
        const float* a = in + k * stride + c0;
        const float *b = a + stride, *c = b + stride, *d = c + stride;
        for (int64_t i = 0; i < w; ++i) part[i] += (a[i] + b[i]) + (c[i] + d[i]);
      }
      for (; k < r1; ++k) {
        const float* a = in + k * stride + c0;
        for (int64_t i = 0; i < w; ++i) part[i] += a[i];
      }
      for (int64_t i = 0; i < w; ++i) acc[c0 + i] += part[i];
    }
  }
}

GENESIS_REDUCE_INLINE void column_sum_squares(const float* __restrict in, int64_t rows,
                                              int64_t stride, int64_t n,
                                              const float* __restrict centre,
                                              double* __restrict acc) {
  for (int64_t k = 0; k < rows; ++k) {
    const float* a = in + k * stride;
    for (int64_t i = 0; i < n; ++i) {
      double d = a[i] - centre[i];  // centred in float, squared in double, as the reducer
      acc[i] += d * d;
    }
  }
}

// Row sums in kRowLanes double lanes, lane e taking the elements e, e + kRowLanes, ... in order
// and the tail going to lane 0: the generic row loop of cpu/reduce.cpp (SumReducer<double>),
// so the sum is its sum bit for bit, in the target's vector registers. 2-core VM, 4096x4096
// float32: sum() 2.07 -> 1.38 ms, sum(dim=1) 2.15 -> 1.34 ms (torch 1.43 and 1.39 ms).
GENESIS_REDUCE_INLINE void row_sum(const float* __restrict x, int64_t n, double* __restrict lanes) {
  double l[kRowLanes] = {};
  int64_t k = 0;
  for (; k + kRowLanes <= n; k += kRowLanes)
    for (int e = 0; e < kRowLanes; ++e) l[e] += static_cast<double>(x[k + e]);
  for (; k < n; ++k) l[0] += static_cast<double>(x[k]);
  for (int e = 0; e < kRowLanes; ++e) lanes[e] = l[e];
}

// The same lanes for SumSquaresReducer<double> rows (norm(), var's second pass): each element
// centred in float, as the generic loop's value(), then squared and added in double. 2-core VM:
// norm() of 2^24 float32 2.07 -> 1.1-1.3 ms (torch 1.8-2.2), var(1) of 4096x4096 4.16 -> 2.17 ms.
GENESIS_REDUCE_INLINE void row_sum_squares(const float* __restrict x, int64_t n, float centre,
                                           double* __restrict lanes) {
  double l[kRowLanes] = {};
  int64_t k = 0;
  for (; k + kRowLanes <= n; k += kRowLanes)
    for (int e = 0; e < kRowLanes; ++e) {
      double d = x[k + e] - centre;
      l[e] += d * d;
    }
  for (; k < n; ++k) {
    double d = x[k] - centre;
    l[0] += d * d;
  }
  for (int e = 0; e < kRowLanes; ++e) lanes[e] = l[e];
}

// Per column: the extreme so far and its row. Strict comparisons keep the first occurrence, and
// a NaN replaces anything but an earlier NaN, as ArgReducer::combine.
template <bool kMax>
GENESIS_REDUCE_INLINE void column_arg(const float* __restrict in, int64_t rows, int64_t stride,
                                      int64_t n, ops::ValueIndex<float>* __restrict out) {
  alignas(64) float best[kSumWidth];
  alignas(64) int32_t row[kSumWidth];
  for (int64_t c0 = 0; c0 < n; c0 += kSumWidth) {
    const int64_t w = std::min(kSumWidth, n - c0);
    for (int64_t i = 0; i < w; ++i) {
      best[i] = in[c0 + i];
      row[i] = 0;
    }
    for (int64_t k = 1; k < rows; ++k) {
      const float* a = in + k * stride + c0;
      const int32_t k32 = static_cast<int32_t>(k);
      for (int64_t i = 0; i < w; ++i) {
        float x = a[i], b = best[i];
        bool take = (kMax ? x > b : x < b) | ((x != x) & (b == b));
        best[i] = take ? x : b;
        row[i] = take ? k32 : row[i];
      }
    }
    for (int64_t i = 0; i < w; ++i) out[c0 + i] = {best[i], row[i]};
  }
}

// Vectors pass by reference: by value they would cross an ABI boundary (-Wpsabi) in code
// compiled without the target's vector registers.
template <typename V>
GENESIS_REDUCE_INLINE void load(V& v, const float* p) {
  std::memcpy(&v, p, sizeof(V));
}

// m = a if a beats m: one vector max/min instruction, which keeps m when a is NaN.
template <bool kMax, typename V>
GENESIS_REDUCE_INLINE void keep_better(V& m, const V& a) {
  if constexpr (kMax)
    m = a > m ? a : m;
  else
    m = a < m ? a : m;
}

// The first index of the extreme of x[0, n), 1 <= n <= kArgBlock. VF holds float lanes and VI
// the int32 lanes of the same count.
template <bool kMax, typename VF, typename VI>
GENESIS_REDUCE_INLINE int64_t arg_block(const float* x, int64_t n) {
  constexpr int W = sizeof(VF) / sizeof(float);
  // Pass 1: the extreme, and whether a NaN is present. NaN is tracked with float selects: int
  // vectors made from compares would scalarize on AVX-512F without AVX-512DQ.
  VF m0 = VF{} + x[0], m1 = m0, m2 = m0, m3 = m0, a, b, c, d;
  VF n0 = VF{}, n1 = n0, n2 = n0, n3 = n0;
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    load(a, x + i);
    load(b, x + i + W);
    load(c, x + i + 2 * W);
    load(d, x + i + 3 * W);
    keep_better<kMax>(m0, a);
    keep_better<kMax>(m1, b);
    keep_better<kMax>(m2, c);
    keep_better<kMax>(m3, d);
    n0 = a != a ? a : n0;
    n1 = b != b ? b : n1;
    n2 = c != c ? c : n2;
    n3 = d != d ? d : n3;
  }
  for (; i + W <= n; i += W) {
    load(a, x + i);
    keep_better<kMax>(m0, a);
    n0 = a != a ? a : n0;
  }
  keep_better<kMax>(m0, m1);
  keep_better<kMax>(m2, m3);
  keep_better<kMax>(m0, m2);
  n0 += n1 + n2 + n3;  // NaN in any lane stays NaN
  float best = m0[0];
  bool has_nan = false;
  for (int l = 0; l < W; ++l) {
    keep_better<kMax>(best, m0[l]);
    has_nan |= n0[l] != n0[l];
  }
  for (; i < n; ++i) {
    has_nan |= x[i] != x[i];
    keep_better<kMax>(best, x[i]);
  }
  if (has_nan) {
    int64_t k = 0;
    while (x[k] == x[k]) ++k;
    return k;
  }
  // Pass 2: the first position holding the extreme (both zeros count as equal, as ties do).
  const VF target = VF{} + best;
  const VI none = VI{} + std::numeric_limits<int32_t>::max();
  VI first = none, pos;
  for (int l = 0; l < W; ++l) pos[l] = l;
  int64_t k = 0;
  for (; k + W <= n; k += W, pos += W) {
    load(a, x + k);
    VI hit = a == target ? pos : none;
    first = hit < first ? hit : first;
  }
  int64_t found = n;
  for (int l = 0; l < W; ++l) found = std::min<int64_t>(found, first[l]);
  for (; k < found; ++k)
    if (x[k] == best) found = k;
  return found;
}

template <bool kMax, typename VF, typename VI>
GENESIS_REDUCE_INLINE int64_t arg_row(const float* x, int64_t n) {
  int64_t best = 0;
  for (int64_t b = 0; b < n; b += kArgBlock) {
    int64_t k = b + arg_block<kMax, VF, VI>(x + b, std::min(kArgBlock, n - b));
    if (x[k] != x[k]) return k;  // the row's first NaN
    if (b == 0 || (kMax ? x[k] > x[best] : x[k] < x[best])) best = k;
  }
  return best;
}

template <typename VF, typename VI>
GENESIS_REDUCE_INLINE int64_t arg_extreme(const float* x, int64_t n, bool is_max) {
  return is_max ? arg_row<true, VF, VI>(x, n) : arg_row<false, VF, VI>(x, n);
}

GENESIS_REDUCE_INLINE void column_arg_extreme(const float* in, int64_t rows, int64_t stride,
                                              int64_t n, bool is_max, ops::ValueIndex<float>* out) {
  if (is_max)
    column_arg<true>(in, rows, stride, n, out);
  else
    column_arg<false>(in, rows, stride, n, out);
}

struct Kernels {
  void (*column_sum)(const float*, int64_t, int64_t, int64_t, double*);
  void (*column_sum_squares)(const float*, int64_t, int64_t, int64_t, const float*, double*);
  void (*column_arg_extreme)(const float*, int64_t, int64_t, int64_t, bool,
                             ops::ValueIndex<float>*);
  int64_t (*arg_extreme)(const float*, int64_t, bool);
  void (*row_sum)(const float*, int64_t, double*);
  void (*row_sum_squares)(const float*, int64_t, float, double*);
};

// The kernels compiled for one instruction set: TARGET is its attribute, VF and VI its float
// and int32 vectors.
#define GENESIS_REDUCE_KERNELS(ISA, TARGET, VF, VI)                                              \
  TARGET void column_sum_##ISA(const float* in, int64_t rows, int64_t stride, int64_t n,         \
                               double* acc) {                                                    \
    column_sum(in, rows, stride, n, acc);                                                        \
  }                                                                                              \
  TARGET void column_sum_squares_##ISA(const float* in, int64_t rows, int64_t stride, int64_t n, \
                                       const float* centre, double* acc) {                       \
    column_sum_squares(in, rows, stride, n, centre, acc);                                        \
  }                                                                                              \
  TARGET void column_arg_extreme_##ISA(const float* in, int64_t rows, int64_t stride, int64_t n, \
                                       bool is_max, ops::ValueIndex<float>* out) {               \
    column_arg_extreme(in, rows, stride, n, is_max, out);                                        \
  }                                                                                              \
  TARGET int64_t arg_extreme_##ISA(const float* x, int64_t n, bool is_max) {                     \
    return arg_extreme<VF, VI>(x, n, is_max);                                                    \
  }                                                                                              \
  TARGET void row_sum_##ISA(const float* x, int64_t n, double* lanes) { row_sum(x, n, lanes); }  \
  TARGET void row_sum_squares_##ISA(const float* x, int64_t n, float centre, double* lanes) {    \
    row_sum_squares(x, n, centre, lanes);                                                        \
  }                                                                                              \
  constexpr Kernels kernels_##ISA = {                                                            \
      column_sum_##ISA, column_sum_squares_##ISA, column_arg_extreme_##ISA, arg_extreme_##ISA,   \
      row_sum_##ISA,    row_sum_squares_##ISA};

typedef float f32x4 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));
GENESIS_REDUCE_KERNELS(base, , f32x4, i32x4)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GENESIS_REDUCE_X86 1
typedef float f32x8 __attribute__((vector_size(32)));
typedef int32_t i32x8 __attribute__((vector_size(32)));
typedef float f32x16 __attribute__((vector_size(64)));
typedef int32_t i32x16 __attribute__((vector_size(64)));
GENESIS_REDUCE_KERNELS(avx2, __attribute__((target("avx2,fma"))), f32x8, i32x8)
GENESIS_REDUCE_KERNELS(avx512, __attribute__((target("avx512f,avx2,fma"))), f32x16, i32x16)
#endif

Kernels pick() {
#ifdef GENESIS_REDUCE_X86
  if (cpu_isa() == Isa::Avx512) return kernels_avx512;
  if (cpu_isa() == Isa::Avx2) return kernels_avx2;
#endif
  return kernels_base;
}

const Kernels& kernels() {
  static const Kernels k = pick();
  return k;
}

}  // namespace

void column_sum_f32(const float* in, int64_t rows, int64_t stride, int64_t n, double* acc) {
  kernels().column_sum(in, rows, stride, n, acc);
}

void column_sum_squares_f32(const float* in, int64_t rows, int64_t stride, int64_t n,
                            const float* centre, double* acc) {
  kernels().column_sum_squares(in, rows, stride, n, centre, acc);
}

void column_arg_extreme_f32(const float* in, int64_t rows, int64_t stride, int64_t n, bool is_max,
                            ops::ValueIndex<float>* out) {
  kernels().column_arg_extreme(in, rows, stride, n, is_max, out);
}

int64_t arg_extreme_f32(const float* x, int64_t n, bool is_max) {
  return kernels().arg_extreme(x, n, is_max);
}

void row_sum_f32(const float* x, int64_t n, double* lanes) { kernels().row_sum(x, n, lanes); }

void row_sum_squares_f32(const float* x, int64_t n, float centre, double* lanes) {
  kernels().row_sum_squares(x, n, centre, lanes);
}

}  // namespace genesis::cpu

// The CPU scans: each (outer, block of inner columns) is a unit of work walked down len in order,
// one accumulator per column, so a scan along an inner dim reads whole rows at a time.
#include "cpu/scan.h"

#include <algorithm>
#include <type_traits>

#include "core/errors.h"
#include "core/scalar_type.h"
#include "cpu/half_simd.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

constexpr int64_t kColumns = 64;  // inner columns a unit carries accumulators for

// The accumulator of Note [Scans]: float for the 16-bit floats, int64 for integers and bool.
template <typename T>
using acc_t = std::conditional_t<kSixteenBitFloat<T>, float,
                                 std::conditional_t<std::is_floating_point_v<T>, T, int64_t>>;

// Calls body(o, c0, nc) for every unit: outer index o, columns [c0, c0 + nc).
template <typename Body>
void for_each_unit(int64_t outer, int64_t len, int64_t inner, const Body& body) {
  int64_t blocks = (inner + kColumns - 1) / kColumns;
  int64_t per_unit = std::max<int64_t>(1, len * std::min(inner, kColumns));
  parallel_for(outer * blocks, std::max<int64_t>(1, kDefaultGrain / per_unit),
               [&](int64_t begin, int64_t end) {
                 for (int64_t u = begin; u < end; ++u) {
                   int64_t c0 = (u % blocks) * kColumns;
                   body(u / blocks, c0, std::min(kColumns, inner - c0));
                 }
               });
}

// n items of a 16-bit float line scanned on from `acc`: widened and rounded back a block at a
// time with the CPU's conversions (cpu/half_simd.h), the combines in float in the same order, so
// the results are the element-wise loop's, bit for bit; false, having written nothing, where the
// CPU lacks the conversions. 2-core VM, cumsum(dim=1) of 16384x1024 float16: 23 -> 12 ms
// (torch 14 ms), bfloat16 15 -> 11 ms.
template <typename T, template <typename> class Combine>
bool scan_block_16bit(const T* s, T* d, int64_t n, float& acc) {
  constexpr int64_t kMost = 64;
  constexpr bool kBFloat16 = std::is_same_v<T, BFloat16>;
  float wide[kMost];
  if (n > kMost || !narrow_from_float_simd(reinterpret_cast<uint16_t*>(d), wide, 0, kBFloat16) ||
      !widen_to_float_simd(wide, reinterpret_cast<const uint16_t*>(s), n, kBFloat16))
    return false;
  float a = acc;
  for (int64_t j = 0; j < n; ++j) wide[j] = a = Combine<float>::combine(a, wide[j]);
  narrow_from_float_simd(reinterpret_cast<uint16_t*>(d), wide, n, kBFloat16);
  acc = a;
  return true;
}

template <typename T, template <typename> class Combine>
void scan_typed(const T* in, T* out, int64_t outer, int64_t len, int64_t inner) {
  using A = acc_t<T>;
  if (inner == 1) {
    // A scan along the last dim: each running value depends on the one before, so a line alone
    // runs at the combine's latency; kLines lines walked together overlap their chains (the
    // order of each line's combines, and so its rounding, is unchanged).
    constexpr int64_t kLines = 8;
    int64_t groups = (outer + kLines - 1) / kLines;
    int64_t grain = std::max<int64_t>(1, kDefaultGrain / (kLines * len));
    parallel_for(groups, grain, [&](int64_t begin, int64_t end) {
      for (int64_t g = begin; g < end; ++g) {
        int64_t o0 = g * kLines, n = std::min(kLines, outer - o0);
        const T* src = in + o0 * len;
        T* dst = out + o0 * len;
        A acc[kLines];
        for (int64_t k = 0; k < n; ++k) {
          acc[k] = static_cast<A>(src[k * len]);
          dst[k * len] = static_cast<T>(acc[k]);
        }
        // Blocks of a cache line along each line: lines len apart often share cache sets, so
        // each line's block is used up in one visit.
        constexpr int64_t kBlock = 64 / sizeof(T);
        for (int64_t j0 = 1; j0 < len; j0 += kBlock) {
          int64_t j1 = std::min(len, j0 + kBlock);
          for (int64_t k = 0; k < n; ++k) {
            const T* s = src + k * len;
            T* d = dst + k * len;
            if constexpr (kSixteenBitFloat<T>) {
              if (scan_block_16bit<T, Combine>(s + j0, d + j0, j1 - j0, acc[k])) continue;
            }
            A a = acc[k];
            for (int64_t j = j0; j < j1; ++j) {
              a = Combine<A>::combine(a, static_cast<A>(s[j]));
              d[j] = static_cast<T>(a);
            }
            acc[k] = a;
          }
        }
      }
    });
    return;
  }
  for_each_unit(outer, len, inner, [&](int64_t o, int64_t c0, int64_t nc) {
    A acc[kColumns];
    const T* src = in + o * len * inner + c0;
    T* dst = out + o * len * inner + c0;
    for (int64_t c = 0; c < nc; ++c) {
      acc[c] = static_cast<A>(src[c]);
      dst[c] = static_cast<T>(acc[c]);
    }
    for (int64_t j = 1; j < len; ++j) {
      src += inner;
      dst += inner;
      for (int64_t c = 0; c < nc; ++c) {
        acc[c] = Combine<A>::combine(acc[c], static_cast<A>(src[c]));
        dst[c] = static_cast<T>(acc[c]);
      }
    }
  });
}

template <bool kMax, typename T>
void extreme_typed(const T* in, T* values, int64_t* indices, int64_t outer, int64_t len,
                   int64_t inner) {
  // Compared as float for the 16-bit floats; every other type as itself.
  using A = std::conditional_t<kSixteenBitFloat<T>, float, T>;
  for_each_unit(outer, len, inner, [&](int64_t o, int64_t c0, int64_t nc) {
    A best[kColumns];
    int64_t at[kColumns];
    int64_t base = o * len * inner + c0;
    for (int64_t c = 0; c < nc; ++c) {
      best[c] = static_cast<A>(in[base + c]);
      at[c] = 0;
      values[base + c] = in[base + c];
      indices[base + c] = 0;
    }
    for (int64_t j = 1; j < len; ++j) {
      int64_t row = base + j * inner;
      for (int64_t c = 0; c < nc; ++c) {
        A v = static_cast<A>(in[row + c]);
        if (ops::takes_over<kMax>(best[c], v)) {
          best[c] = v;
          at[c] = j;
        }
        values[row + c] = static_cast<T>(best[c]);
        indices[row + c] = at[c];
      }
    }
  });
}

}  // namespace

void scan(ops::ScanOp op, const Tensor& in, const Tensor& out, int64_t outer, int64_t len,
          int64_t inner) {
  GENESIS_CHECK(in.dtype() == out.dtype() && in.is_contiguous() && out.is_contiguous(), "scan",
                "expected contiguous tensors of one dtype");
  if (outer * len * inner == 0) return;
  GENESIS_DISPATCH_ALL_TYPES(in.dtype(), "scan", [&] {
    const auto* src = in.data_as<scalar_t>();
    auto* dst = out.mutable_data_as<scalar_t>();
    if constexpr (std::is_same_v<scalar_t, bool>) {
      GENESIS_FAIL(ErrorKind::Type, "scan", "bool results are not supported");
    } else {
      switch (op) {
        case ops::ScanOp::Sum:
          return scan_typed<scalar_t, ops::SumScan>(src, dst, outer, len, inner);
        case ops::ScanOp::Prod:
          return scan_typed<scalar_t, ops::ProdScan>(src, dst, outer, len, inner);
        case ops::ScanOp::LogSumExp:
          if constexpr (std::is_integral_v<scalar_t>)
            GENESIS_FAIL(ErrorKind::Type, "logcumsumexp", "expects a floating point dtype");
          else
            return scan_typed<scalar_t, ops::LogAddExpScan>(src, dst, outer, len, inner);
      }
    }
  });
}

void scan_extreme(bool is_max, const Tensor& in, const Tensor& values, const Tensor& indices,
                  int64_t outer, int64_t len, int64_t inner) {
  GENESIS_CHECK(in.dtype() == values.dtype() && indices.dtype() == ScalarType::Int64 &&
                    in.is_contiguous() && values.is_contiguous() && indices.is_contiguous(),
                "scan", "expected contiguous values of the input's dtype and int64 indices");
  if (outer * len * inner == 0) return;
  GENESIS_DISPATCH_ALL_TYPES(in.dtype(), "scan", [&] {
    const auto* src = in.data_as<scalar_t>();
    auto* v = values.mutable_data_as<scalar_t>();
    auto* i = indices.mutable_data_as<int64_t>();
    if (is_max)
      extreme_typed<true>(src, v, i, outer, len, inner);
    else
      extreme_typed<false>(src, v, i, outer, len, inner);
  });
}

}  // namespace genesis::cpu

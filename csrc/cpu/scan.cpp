// The CPU scans: each (outer, block of inner columns) is a unit of work walked down len in order,
// one accumulator per column, so a scan along an inner dim reads whole rows at a time.
#include "cpu/scan.h"

#include <algorithm>
#include <type_traits>

#include "core/errors.h"
#include "core/scalar_type.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

constexpr int64_t kColumns = 64;  // inner columns a unit carries accumulators for

// The accumulator of Note [Scans]: float for the 16-bit floats, int64 for integers and bool.
template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float,
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

template <typename T, template <typename> class Combine>
void scan_typed(const T* in, T* out, int64_t outer, int64_t len, int64_t inner) {
  using A = acc_t<T>;
  if (inner == 1) {  // a scan along the last dim: one running value a line
    parallel_for(outer, std::max<int64_t>(1, kDefaultGrain / len), [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        const T* src = in + o * len;
        T* dst = out + o * len;
        A acc = static_cast<A>(src[0]);
        dst[0] = static_cast<T>(acc);
        for (int64_t j = 1; j < len; ++j) {
          acc = Combine<A>::combine(acc, static_cast<A>(src[j]));
          dst[j] = static_cast<T>(acc);
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
  using A = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
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

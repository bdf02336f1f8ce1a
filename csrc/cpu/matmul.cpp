#include "cpu/matmul.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cpu/copy.h"
#include "cpu/gemm.h"
#include "cpu/parallel.h"

namespace genesis::cpu {

namespace {

template <typename T>
void float_matmul(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t sa[3] = {a.strides()[0], a.strides()[1], a.strides()[2]};
  const int64_t sb[3] = {b.strides()[0], b.strides()[1], b.strides()[2]};
  gemm(out.mutable_data_as<T>(), a.data_as<T>(), sa, b.data_as<T>(), sb, a.sizes()[0], a.sizes()[1],
       b.sizes()[2], a.sizes()[2]);
}

// bfloat16 operands straight into the AMX GEMM where the CPU has it: into a float32 C, or a
// bfloat16 one (rounded in the GEMM) where k is short enough. False: not run.
bool bfloat16_matmul(const Tensor& c, const Tensor& a, const Tensor& b) {
  const int64_t sa[3] = {a.strides()[0], a.strides()[1], a.strides()[2]};
  const int64_t sb[3] = {b.strides()[0], b.strides()[1], b.strides()[2]};
  const auto* pa = static_cast<const uint16_t*>(a.data());
  const auto* pb = static_cast<const uint16_t*>(b.data());
  const int64_t batch = a.sizes()[0], m = a.sizes()[1], n = b.sizes()[2], k = a.sizes()[2];
  if (c.dtype() == ScalarType::Float32)
    return gemm_bfloat16(c.mutable_data_as<float>(), pa, sa, pb, sb, batch, m, n, k);
  return gemm_bfloat16_rounded(static_cast<uint16_t*>(c.mutable_data()), pa, sa, pb, sb, batch, m,
                               n, k);
}

// A float32 copy of a 3-D operand. A broadcast batch (stride 0) is converted once and expanded
// again, so broadcasting costs no extra memory.
Tensor to_float32(const Tensor& t) {
  const Shape& s = t.sizes();
  bool broadcast = s[0] > 1 && t.strides()[0] == 0;
  Tensor src = broadcast ? t.as_strided({1, s[1], s[2]}, {0, t.strides()[1], t.strides()[2]},
                                        t.storage_offset())
                         : t;
  Tensor f = Tensor::empty(src.sizes(), ScalarType::Float32, kCPU);
  copy(f, src);
  return broadcast ? f.as_strided(s, {0, s[2], 1}, 0) : f;
}

// Integer sums wrap around in the type's width, as in PyTorch and NumPy. Accumulating in an
// unsigned type at least as wide gives the same low bits without signed overflow (undefined in
// C++); the final conversion keeps those bits.
template <typename T>
void int_matmul(const Tensor& out, const Tensor& a, const Tensor& b) {
  using U = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
  const int64_t m = a.sizes()[1], k = a.sizes()[2], n = b.sizes()[2];
  const Shape &sa = a.strides(), &sb = b.strides();
  const T* pa = a.data_as<T>();
  const T* pb = b.data_as<T>();
  T* pc = out.mutable_data_as<T>();
  int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, k * n));
  parallel_for(a.sizes()[0] * m, grain, [&](int64_t begin, int64_t end) {
    std::vector<U> acc(static_cast<size_t>(n));
    for (int64_t r = begin; r < end; ++r) {
      const T* arow = pa + (r / m) * sa[0] + (r % m) * sa[1];
      const T* bmat = pb + (r / m) * sb[0];
      std::fill(acc.begin(), acc.end(), U(0));
      for (int64_t p = 0; p < k; ++p) {
        U x = static_cast<U>(arow[p * sa[2]]);
        const T* brow = bmat + p * sb[1];
        if (sb[2] == 1) {
          for (int64_t j = 0; j < n; ++j) acc[j] += x * static_cast<U>(brow[j]);
        } else {
          for (int64_t j = 0; j < n; ++j) acc[j] += x * static_cast<U>(brow[j * sb[2]]);
        }
      }
      T* crow = pc + r * n;
      for (int64_t j = 0; j < n; ++j) crow[j] = static_cast<T>(acc[j]);
    }
  });
}

// Note [Transposed products on the CPU]: the GEMM packs both operands, a column-major one
// through transposes (Note [CPU GEMM]). A weight's gradient, g^T @ x, has the large gradient
// as a column-major A and the small input as a row-major B; C^T = B^T A^T swaps their parts, so
// that only the small operand is transposed, into a scratch C^T that one transposing copy puts
// in place. GPT-2-head-sized (4096 x 512 @ 512 x 128) in bfloat16: 0.97 -> 0.51 ms; float32
// 2.03 -> 1.63 ms. Taken where A's items outnumber twice B's and C's together. The mirror case
// too: a large column-major B (a Linear's weight.T) times a small row-major A (a recurrence's
// state, h @ W_hh.T) becomes W_hh @ h.T, whose row-major A the GEMM reads in place (Note
// [Row-major A read in place]) and whose small B it packs. Not for float products of a few
// rows, which read either layout of B where it lies (Note [Products of a few rows]).
bool transposed_product_pays(const Tensor& a, const Tensor& b) {
  const int64_t m = a.sizes()[1], k = a.sizes()[2], n = b.sizes()[2];
  const bool few_rows_dtype = a.dtype() == ScalarType::Float32 ||
                              a.dtype() == ScalarType::Float64 || a.dtype() == ScalarType::BFloat16;
  if (few_rows_dtype &&
      gemm_few_rows(a.dtype() == ScalarType::BFloat16, m, b.strides()[1], b.strides()[2]))
    return false;
  const bool a_rows = a.strides()[2] == 1 && m > 1, b_rows = b.strides()[2] == 1 && n > 1;
  const bool a_columns = a.strides()[1] == 1 && !a_rows && m > 1;
  const bool b_columns = b.strides()[1] == 1 && !b_rows && n > 1;
  return (a_columns && b_rows && m * k > 2 * (k * n + m * n)) ||
         (b_columns && a_rows && k * n > 2 * (m * k + m * n));
}

// (batch, r, c) t as its (batch, c, r) transpose, a view.
Tensor swap_last(const Tensor& t) {
  const Shape& s = t.sizes();
  const Shape& st = t.strides();
  return t.as_strided({s[0], s[2], s[1]}, {st[0], st[2], st[1]}, t.storage_offset());
}

}  // namespace

void matmul(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (is_floating_point(a.dtype()) && transposed_product_pays(a, b)) {
    Tensor transposed =
        Tensor::empty({a.sizes()[0], b.sizes()[2], a.sizes()[1]}, out.dtype(), kCPU);
    matmul(transposed, swap_last(b), swap_last(a));  // B^T A^T, which does not pay to swap back
    copy(out, swap_last(transposed));
    return;
  }
  switch (a.dtype()) {
    case ScalarType::Float32:
      return float_matmul<float>(out, a, b);
    case ScalarType::Float64:
      return float_matmul<double>(out, a, b);
    case ScalarType::Float16:
    case ScalarType::BFloat16: {
      // Accumulate in float32 (as PyTorch does) and round to 16 bits once.
      if (a.dtype() == ScalarType::BFloat16 && bfloat16_matmul(out, a, b)) return;
      Tensor wide = Tensor::empty(out.sizes(), ScalarType::Float32, kCPU);
      if (a.dtype() == ScalarType::BFloat16 && bfloat16_matmul(wide, a, b)) {
        copy(out, wide);
        return;
      }
      float_matmul<float>(wide, to_float32(a), to_float32(b));
      copy(out, wide);
      return;
    }
    case ScalarType::UInt8:
      return int_matmul<uint8_t>(out, a, b);
    case ScalarType::Int8:
      return int_matmul<int8_t>(out, a, b);
    case ScalarType::Int16:
      return int_matmul<int16_t>(out, a, b);
    case ScalarType::Int32:
      return int_matmul<int32_t>(out, a, b);
    case ScalarType::Int64:
      return int_matmul<int64_t>(out, a, b);
    case ScalarType::Bool:
      break;
  }
  GENESIS_FAIL(ErrorKind::Type, "matmul", "unsupported dtype ", scalar_type_name(a.dtype()));
}

}  // namespace genesis::cpu

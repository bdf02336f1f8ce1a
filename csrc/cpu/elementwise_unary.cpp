// Unary elementwise loops and where() on the CPU.
#include <algorithm>
#include <type_traits>

#include "core/errors.h"
#include "core/loop_plan.h"
#include "core/scalar.h"
#include "cpu/elementwise.h"
#include "cpu/half_simd.h"
#include "cpu/loop.h"
#include "cpu/vector_math.h"
#include "vocab/op_dispatch.h"

namespace genesis::cpu {

namespace {

// o = after(x, vector(before(x))) a chunk at a time: an op whose costly core has a vector
// routine (GELU's erf or tanh) and whose plain float arithmetic around it the compiler
// vectorizes. o may equal x.
template <typename Before, typename Vector, typename After>
void through_chunks(float* o, const float* x, int64_t n, Before before, Vector vector,
                    After after) {
  constexpr int64_t kChunk = 1024;
  float buf[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    int64_t m = std::min(kChunk, n - i);
    for (int64_t k = 0; k < m; ++k) buf[k] = before(x[i + k]);
    vector(buf, buf, m);
    for (int64_t k = 0; k < m; ++k) o[i + k] = after(x[i + k], buf[k]);
  }
}

// A contiguous run in the compute type, with the vector routine where there is one.
template <typename Op, typename C>
void apply_run(C* o, const C* x, int64_t n, const Op& op) {
  if constexpr (std::is_same_v<Op, ops::math::Exp> && std::is_same_v<C, float>) {
    if (exp_f32_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Exp> && std::is_same_v<C, double>) {
    if (exp_f64_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Sigmoid> && std::is_same_v<C, float>) {
    // 1 / (1 + exp(-x)), as the functor computes it, in one vector pass
    if (sigmoid_f32_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Erf> && std::is_same_v<C, float>) {
    if (erf_f32_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Tanh> && std::is_same_v<C, float>) {
    if (tanh_f32_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Gelu> && std::is_same_v<C, float>) {
    // The functor's float arithmetic around the vector erf: one pass (AVX-512), else a chunk at
    // a time.
    if (gelu_f32_simd(o, x, n, false)) return;
    if (erf_f32_simd(o, x, 0))
      return through_chunks(
          o, x, n, [](float v) { return v * 0.70710678118654752440f; }, erf_f32_simd,
          [](float v, float e) { return 0.5f * v * (1.0f + e); });
  } else if constexpr (std::is_same_v<Op, ops::math::GeluTanh> && std::is_same_v<C, float>) {
    if (gelu_f32_simd(o, x, n, true)) return;
    if (tanh_f32_simd(o, x, 0))
      return through_chunks(
          o, x, n, [](float v) { return 0.79788456080286535588f * (v + 0.044715f * v * v * v); },
          tanh_f32_simd, [](float v, float t) { return 0.5f * v * (1.0f + t); });
  } else if constexpr (std::is_same_v<Op, ops::math::Silu> && std::is_same_v<C, float>) {
    // x / (1 + exp(-x)), the functor's formula over the vector exp, one pass (AVX-512); else
    // a chunk at a time around the vector exp
    if (silu_f32_simd(o, x, n)) return;
    if (exp_f32_simd(o, x, 0))
      return through_chunks(
          o, x, n, [](float v) { return -v; }, exp_f32_simd,
          [](float v, float e) { return v / (1.0f + e); });
  } else if constexpr (std::is_same_v<Op, ops::math::Mish> && std::is_same_v<C, float>) {
    // x tanh(log1p(e^x)) = x n / (n + 2) with n = e^x (e^x + 2), exp alone; x above 20 as the
    // functor (tanh(x) rounds to 1 there)
    if (exp_f32_simd(o, x, 0))
      return through_chunks(
          o, x, n, [](float v) { return v < 20.0f ? v : 20.0f; }, exp_f32_simd,
          [](float v, float e) {
            float m = e * (e + 2.0f);
            return v > 20.0f ? v : v * (m / (m + 2.0f));
          });
  } else if constexpr (std::is_same_v<Op, ops::math::Expm1> && std::is_same_v<C, float>) {
    if (expm1_f32_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Log> && std::is_same_v<C, float>) {
    if (log_f32_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Log1p> && std::is_same_v<C, float>) {
    if (log1p_f32_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Softplus> && std::is_same_v<C, float>) {
    if (softplus_f32_simd(o, x, n)) return;
  } else if constexpr (std::is_same_v<Op, ops::math::Elu> && std::is_same_v<C, float>) {
    // x above 0, expm1(x) at and below it, over the vector expm1
    if (expm1_f32_simd(o, x, 0))
      return through_chunks(
          // NaN and -0 reach expm1 (which keeps them); positives need none
          o, x, n, [](float v) { return v > 0.0f ? 0.0f : v; }, expm1_f32_simd,
          [](float v, float e) { return v > 0.0f ? v : e; });
  }
  for (int64_t i = 0; i < n; ++i) o[i] = op(x[i]);
}

// Contiguous 16-bit runs go through float a chunk at a time, so the op runs on plain float arrays
// (vectorized) and each result is rounded to 16 bits once, as in the per-element path.
template <typename Op, typename T>
void apply_run_16bit(T* o, const T* x, int64_t n, const Op& op) {
  float buf[kSixteenBitChunk];
  for (int64_t i = 0; i < n; i += kSixteenBitChunk) {
    int64_t m = std::min(kSixteenBitChunk, n - i);
    widen_chunk(buf, x + i, m);
    apply_run(buf, buf, m, op);
    narrow_chunk(o + i, buf, m);
  }
}

// A dense run of n items in the storage type T.
template <typename Op, typename T>
void dense_unary(T* o, const T* x, int64_t n) {
  if constexpr (std::is_same_v<T, compute_t<T>>)
    apply_run(o, x, n, Op{});
  else
    apply_run_16bit(o, x, n, Op{});
}

template <typename Op, typename T>
void unary_typed(const Tensor& out, const Tensor& a) {
  using C = compute_t<T>;
  const Tensor* inputs[1] = {&a};
  LoopPlan plan = plan_elementwise(out, inputs, 1);
  const Op op{};
  // Transcendental ops cost far more than a load: split them into smaller parallel chunks.
  int64_t grain = std::is_floating_point_v<C> ? 4096 : kDefaultGrain;
  for_each_run<2>(
      plan, {written_base(out), read_base(a)},
      [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
        if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
          T* o = reinterpret_cast<T*>(p[0]);
          const T* x = reinterpret_cast<const T*>(p[1]);
          return dense_unary<Op, T>(o, x, n);
        }
        for (int64_t i = 0; i < n; ++i) {
          C v = cast_value<C>(*reinterpret_cast<const T*>(p[1] + i * s[1]));
          *reinterpret_cast<T*>(p[0] + i * s[0]) = cast_value<T>(op(v));
        }
      },
      grain);
}

template <typename W>
void where_typed(const Tensor& out, const Tensor& cond, const Tensor& a, uint64_t a_bits,
                 const Tensor& b, uint64_t b_bits) {
  const Tensor* inputs[3] = {&cond, &a, &b};
  LoopPlan plan = plan_elementwise(out, inputs, 3);
  const W av = static_cast<W>(a_bits), bv = static_cast<W>(b_bits);
  const bool a_scalar = !a.defined(), b_scalar = !b.defined();
  for_each_run<4>(plan, {written_base(out), read_base(cond), read_base(a), read_base(b)},
                  [&](const std::array<char*, 4>& p, const std::array<int64_t, 4>& s, int64_t n) {
                    for (int64_t i = 0; i < n; ++i) {
                      bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
                      W v = c ? (a_scalar ? av : *reinterpret_cast<const W*>(p[2] + i * s[2]))
                              : (b_scalar ? bv : *reinterpret_cast<const W*>(p[3] + i * s[3]));
                      *reinterpret_cast<W*>(p[0] + i * s[0]) = v;
                    }
                  });
}

template <typename W>
void where_run_typed(W* o, const bool* cond, const W* a, W av, const W* b, W bv, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = cond[i] ? (a ? a[i] : av) : (b ? b[i] : bv);
}

}  // namespace

void unary_run(ops::UnaryOp op, ScalarType dtype, void* out, const void* a, int64_t n,
               bool as_strided) {
  ops::visit_unary(op, [&](auto functor) {
    using Op = decltype(functor);
    GENESIS_DISPATCH_ALL_TYPES(dtype, "elementwise", [&] {
      using T = scalar_t;
      using C = compute_t<T>;
      if constexpr (ops::unary_supports<Op, C>()) {
        auto* o = static_cast<T*>(out);
        auto* x = static_cast<const T*>(a);
        if (!as_strided) return dense_unary<Op, T>(o, x, n);
        for (int64_t i = 0; i < n; ++i) o[i] = cast_value<T>(functor(cast_value<C>(x[i])));
      } else
        GENESIS_FAIL(ErrorKind::Type, "elementwise", "unsupported dtype ", scalar_type_name(dtype));
    });
  });
}

void where_run(int itemsize, void* out, const bool* cond, const void* a, uint64_t a_bits,
               const void* b, uint64_t b_bits, int64_t n) {
  auto run = [&](auto tag) {
    using W = decltype(tag);
    where_run_typed<W>(static_cast<W*>(out), cond, static_cast<const W*>(a), static_cast<W>(a_bits),
                       static_cast<const W*>(b), static_cast<W>(b_bits), n);
  };
  switch (itemsize) {
    case 1:
      return run(uint8_t{});
    case 2:
      return run(uint16_t{});
    case 4:
      return run(uint32_t{});
    default:
      return run(uint64_t{});
  }
}

void unary(ops::UnaryOp op, const Tensor& out, const Tensor& a) {
  if (out.numel() == 0) return;
  ops::visit_unary(op, [&](auto functor) {
    using Op = decltype(functor);
    GENESIS_DISPATCH_ALL_TYPES(out.dtype(), "elementwise", [&] {
      using T = scalar_t;
      if constexpr (ops::unary_supports<Op, compute_t<T>>())
        unary_typed<Op, T>(out, a);
      else
        GENESIS_FAIL(ErrorKind::Type, "elementwise", "unsupported dtype ",
                     scalar_type_name(out.dtype()));
    });
  });
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, uint64_t a_bits, const Tensor& b,
           uint64_t b_bits) {
  if (out.numel() == 0) return;
  switch (out.itemsize()) {
    case 1:
      return where_typed<uint8_t>(out, cond, a, a_bits, b, b_bits);
    case 2:
      return where_typed<uint16_t>(out, cond, a, a_bits, b, b_bits);
    case 4:
      return where_typed<uint32_t>(out, cond, a, a_bits, b, b_bits);
    default:
      return where_typed<uint64_t>(out, cond, a, a_bits, b, b_bits);
  }
}

}  // namespace genesis::cpu

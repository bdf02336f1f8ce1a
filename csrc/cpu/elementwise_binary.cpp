// Binary elementwise loops on the CPU. Each run of the loop plan picks the tightest inner loop
// its strides allow (all dense, one side a scalar or broadcast along the run, or general), so
// the common cases compile to vectorized code.
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

template <typename C>
C scalar_as(const ops::ScalarArg& s) {
  return s.is_float ? static_cast<C>(s.d) : static_cast<C>(s.i);
}

// A contiguous run of 16-bit operands (Note at kSixteenBitChunk in cpu/half_simd.h): each chunk
// of x and y widened to float (x_value / y_value non-null: that side is one float value), the
// op on float arrays, the results rounded to T once (or bools). The same values as the
// per-element path.
template <typename Op, typename T, typename R>
void binary_run_16bit(R* o, const T* x, const T* y, int64_t n, const Op& op, const float* x_value,
                      const float* y_value) {
  float xs[kSixteenBitChunk], ys[kSixteenBitChunk], rs[kSixteenBitChunk];
  for (int64_t i = 0; i < n; i += kSixteenBitChunk) {
    const int64_t m = std::min(kSixteenBitChunk, n - i);
    if (x_value == nullptr) widen_chunk(xs, x + i, m);
    if (y_value == nullptr) widen_chunk(ys, y + i, m);
    auto each = [&](auto&& result) {
      if (x_value != nullptr)
        for (int64_t j = 0; j < m; ++j) result(j, op(*x_value, ys[j]));
      else if (y_value != nullptr)
        for (int64_t j = 0; j < m; ++j) result(j, op(xs[j], *y_value));
      else
        for (int64_t j = 0; j < m; ++j) result(j, op(xs[j], ys[j]));
    };
    if constexpr (std::is_same_v<R, bool>) {
      each([&](int64_t j, bool r) { o[i + j] = r; });
    } else {
      each([&](int64_t j, float r) { rs[j] = r; });
      narrow_chunk(o + i, rs, m);
    }
  }
}

// o[i] = op(x[i], y[i]) for a dense run; a null side is the one value xv / yv.
template <typename Op, typename T, typename R, typename C = compute_t<T>>
void dense_run(R* o, const T* x, C xv, const T* y, C yv, int64_t n) {
  const Op op{};
  auto result = [&](C a, C b) { return cast_value<R>(op(a, b)); };
  if constexpr (kSixteenBitFloat<T>) {
    return binary_run_16bit<Op, T, R>(o, x, y, n, op, x ? nullptr : &xv, y ? nullptr : &yv);
  } else {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<R, float>) {
      // the activations' gradients over the vector exp / erf / tanh
      constexpr bool silu = std::is_same_v<Op, ops::math::SiluBackward>;
      constexpr bool gelu = std::is_same_v<Op, ops::math::GeluBackward>;
      constexpr bool gelu_tanh = std::is_same_v<Op, ops::math::GeluTanhBackward>;
      if constexpr (silu || gelu || gelu_tanh) {
        constexpr ActivationGrad kind = silu   ? ActivationGrad::Silu
                                        : gelu ? ActivationGrad::Gelu
                                               : ActivationGrad::GeluTanh;
        if (x && y && activation_backward_f32_simd(kind, o, x, y, n)) return;
      }
    }
    if (x && y)
      for (int64_t i = 0; i < n; ++i) o[i] = result(cast_value<C>(x[i]), cast_value<C>(y[i]));
    else if (x)
      for (int64_t i = 0; i < n; ++i) o[i] = result(cast_value<C>(x[i]), yv);
    else
      for (int64_t i = 0; i < n; ++i) o[i] = result(xv, cast_value<C>(y[i]));
  }
}

template <typename Op, typename T, typename R>
void binary_typed(const Tensor& out, const Tensor& a, const ops::ScalarArg& sa, const Tensor& b,
                  const ops::ScalarArg& sb) {
  using C = compute_t<T>;
  const Tensor* inputs[2] = {&a, &b};
  LoopPlan plan = plan_elementwise(out, inputs, 2);
  const C av = sa.is_scalar ? scalar_as<C>(sa) : C();
  const C bv = sb.is_scalar ? scalar_as<C>(sb) : C();
  const bool a_scalar = sa.is_scalar, b_scalar = sb.is_scalar;
  constexpr int64_t kT = sizeof(T), kR = sizeof(R);
  const Op op{};
  auto result = [&](C x, C y) { return cast_value<R>(op(x, y)); };
  auto load = [](const char* p) { return cast_value<C>(*reinterpret_cast<const T*>(p)); };
  for_each_run<3>(
      plan, {written_base(out), read_base(a), read_base(b)},
      [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t n) {
        R* o = reinterpret_cast<R*>(p[0]);
        const T* x = reinterpret_cast<const T*>(p[1]);
        const T* y = reinterpret_cast<const T*>(p[2]);
        const bool dense_a = !a_scalar && s[1] == kT, dense_b = !b_scalar && s[2] == kT;
        const bool still_a = a_scalar || s[1] == 0, still_b = b_scalar || s[2] == 0;
        if (s[0] == kR && (dense_a || still_a) && (dense_b || still_b) && (dense_a || dense_b)) {
          // Scalars and broadcast sides as one value.
          const C xv = a_scalar ? av : dense_a ? C() : cast_value<C>(*x);
          const C yv = b_scalar ? bv : dense_b ? C() : cast_value<C>(*y);
          return dense_run<Op, T, R>(o, dense_a ? x : nullptr, xv, dense_b ? y : nullptr, yv, n);
        }
        for (int64_t i = 0; i < n; ++i) {
          C xv = a_scalar ? av : load(p[1] + i * s[1]);
          C yv = b_scalar ? bv : load(p[2] + i * s[2]);
          *reinterpret_cast<R*>(p[0] + i * s[0]) = result(xv, yv);
        }
      });
}

}  // namespace

void binary_run(ops::BinaryOp op, ScalarType dtype, void* out, const void* a,
                const ops::ScalarArg& sa, const void* b, const ops::ScalarArg& sb, int64_t n) {
  ops::visit_binary(op, [&](auto functor) {
    using Op = decltype(functor);
    GENESIS_DISPATCH_ALL_TYPES(dtype, "elementwise", [&] {
      using T = scalar_t;
      using C = compute_t<T>;
      const C av = sa.is_scalar ? scalar_as<C>(sa) : C();
      const C bv = sb.is_scalar ? scalar_as<C>(sb) : C();
      auto* x = sa.is_scalar ? nullptr : static_cast<const T*>(a);
      auto* y = sb.is_scalar ? nullptr : static_cast<const T*>(b);
      if constexpr (ops::is_compare_functor<Op>)
        dense_run<Op, T, bool>(static_cast<bool*>(out), x, av, y, bv, n);
      else if constexpr (ops::binary_supports<Op, C>())
        dense_run<Op, T, T>(static_cast<T*>(out), x, av, y, bv, n);
      else
        GENESIS_FAIL(ErrorKind::Type, "elementwise", "unsupported dtype ", scalar_type_name(dtype));
    });
  });
}

void binary(ops::BinaryOp op, ScalarType dtype, const Tensor& out, const Tensor& a,
            const ops::ScalarArg& sa, const Tensor& b, const ops::ScalarArg& sb) {
  if (out.numel() == 0) return;
  ops::visit_binary(op, [&](auto functor) {
    using Op = decltype(functor);
    GENESIS_DISPATCH_ALL_TYPES(dtype, "elementwise", [&] {
      using T = scalar_t;
      if constexpr (ops::is_compare_functor<Op>)
        binary_typed<Op, T, bool>(out, a, sa, b, sb);
      else if constexpr (ops::binary_supports<Op, compute_t<T>>())
        binary_typed<Op, T, T>(out, a, sa, b, sb);
      else
        GENESIS_FAIL(ErrorKind::Type, "elementwise", "unsupported dtype ", scalar_type_name(dtype));
    });
  });
}

}  // namespace genesis::cpu

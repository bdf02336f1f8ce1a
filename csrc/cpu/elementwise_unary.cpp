// Unary elementwise loops and where() on the CPU.
#include "core/errors.h"
#include "core/loop_plan.h"
#include "core/scalar.h"
#include "cpu/elementwise.h"
#include "cpu/loop.h"
#include "ops/op_dispatch.h"

namespace genesis::cpu {

namespace {

char* base_of(const Tensor& t) { return t.defined() ? static_cast<char*>(t.data()) : nullptr; }

template <typename Op, typename T>
void unary_typed(const Tensor& out, const Tensor& a) {
  using C = compute_t<T>;
  const Tensor* inputs[1] = {&a};
  LoopPlan plan = plan_elementwise(out, inputs, 1);
  const Op op{};
  // Transcendental ops cost far more than a load: split them into smaller parallel chunks.
  int64_t grain = std::is_floating_point_v<C> ? 4096 : kDefaultGrain;
  for_each_run<2>(
      plan, {base_of(out), base_of(a)},
      [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
        if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
          T* o = reinterpret_cast<T*>(p[0]);
          const T* x = reinterpret_cast<const T*>(p[1]);
          for (int64_t i = 0; i < n; ++i) o[i] = cast_value<T>(op(cast_value<C>(x[i])));
          return;
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
  for_each_run<4>(plan, {base_of(out), base_of(cond), base_of(a), base_of(b)},
                  [&](const std::array<char*, 4>& p, const std::array<int64_t, 4>& s, int64_t n) {
                    for (int64_t i = 0; i < n; ++i) {
                      bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
                      W v = c ? (a_scalar ? av : *reinterpret_cast<const W*>(p[2] + i * s[2]))
                              : (b_scalar ? bv : *reinterpret_cast<const W*>(p[3] + i * s[3]));
                      *reinterpret_cast<W*>(p[0] + i * s[0]) = v;
                    }
                  });
}

}  // namespace

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

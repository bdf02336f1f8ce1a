// Comparisons (bool results) and bitwise ops; see binary_arith.cu for the rest.
#include "kernels/elementwise_loops.cuh"
#include "vocab/op_dispatch.h"

namespace genesis::kernels {

void launch_binary_arith(ops::BinaryOp op, int dtype, void* out, const void* a, const void* b,
                         const ops::ScalarArg& sa, const ops::ScalarArg& sb, const Geometry& g,
                         cudaStream_t stream);

namespace {
template <typename Op>
constexpr bool is_bitwise_functor =
    std::is_same_v<Op, ops::math::BitAnd> || std::is_same_v<Op, ops::math::BitOr> ||
    std::is_same_v<Op, ops::math::BitXor> || std::is_same_v<Op, ops::math::ShiftLeft> ||
    std::is_same_v<Op, ops::math::ShiftRight>;
}  // namespace

void launch_binary(ops::BinaryOp op, int dtype, void* out, const void* a, const void* b,
                   const ops::ScalarArg& sa, const ops::ScalarArg& sb, const Geometry& g,
                   void* stream_ptr) {
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  if (!ops::is_comparison(op) && !ops::is_bitwise(op))
    return launch_binary_arith(op, dtype, out, a, b, sa, sb, g, stream);
  ops::visit_binary(op, [&](auto functor) {
    using Op = decltype(functor);
    if constexpr (ops::is_compare_functor<Op> || is_bitwise_functor<Op>) {
      dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (ops::is_compare_functor<Op>)
          launch_binary_typed<Op, T, bool>(out, a, b, sa, sb, g, stream);
        else if constexpr (ops::binary_supports<Op, compute_t<T>>())
          launch_binary_typed<Op, T, T>(out, a, b, sa, sb, g, stream);
      });
    }
  });
}

}  // namespace genesis::kernels

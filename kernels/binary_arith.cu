// Arithmetic binary ops (+ - * / // % ** maximum minimum) for every dtype they accept; the
// comparisons and bitwise ops live in binary_compare.cu so the two compile in parallel.
#include "kernels/elementwise_loops.cuh"
#include "vocab/op_dispatch.h"

namespace genesis::kernels {

void launch_binary_arith(ops::BinaryOp op, int dtype, void* out, const void* a, const void* b,
                         const ops::ScalarArg& sa, const ops::ScalarArg& sb, const Geometry& g,
                         cudaStream_t stream) {
  ops::visit_binary(op, [&](auto functor) {
    using Op = decltype(functor);
    if constexpr (!ops::is_compare_functor<Op>) {
      dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (ops::binary_supports<Op, compute_t<T>>())
          launch_binary_typed<Op, T, T>(out, a, b, sa, sb, g, stream);
      });
    }
  });
}

}  // namespace genesis::kernels

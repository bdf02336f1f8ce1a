// max, min, argmax, argmin (values and first indices) for every dtype.
#include "kernels/reduce_loops.cuh"

namespace genesis::kernels {

void launch_reduce_extreme(const ReduceLaunch& l, cudaStream_t stream) {
  using ops::ReduceOp;
  dispatch_dtype(l.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    switch (l.op) {
      case ReduceOp::Max:
        return run_reduce<ops::ExtremeReducer<C, true>, T>(l, stream);
      case ReduceOp::Min:
        return run_reduce<ops::ExtremeReducer<C, false>, T>(l, stream);
      case ReduceOp::ArgMax:
        return run_reduce<ops::ArgReducer<C, true>, T>(l, stream);
      case ReduceOp::ArgMin:
        return run_reduce<ops::ArgReducer<C, false>, T>(l, stream);
      default:
        return;
    }
  });
}

}  // namespace genesis::kernels

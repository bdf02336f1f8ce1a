// Sum, prod, sum of squares, all, any; the chunk planning; the launch dispatch.
#include "kernels/reduce_loops.cuh"

namespace genesis::kernels {

void launch_reduce_extreme(const ReduceLaunch& l, cudaStream_t stream);  // reduce_extreme.cu

size_t plan_reduce(ReduceLaunch& l, int sm_count) {
  const ops::ReduceShape& s = l.shape;
  const int64_t outputs = s.outputs();
  int64_t chunks = 1;
  if (s.inner == 1) {
    int64_t blocks = s.reduce <= 512 ? (outputs + 7) / 8 : outputs;
    // Four blocks per SM, each thread with tens of 16-byte loads: 16 blocks per SM left each
    // thread a handful (a full sum of 2^24 float32 had 7952 items a block) and the blocks'
    // start and final reductions showed (H100 probe: 29.8 -> 28.0 us, float16 12.9 -> 10.0).
    int64_t target = static_cast<int64_t>(sm_count) * 4;
    if (blocks < target) chunks = std::min((target + blocks - 1) / blocks, s.reduce / 4096);
  } else {
    int64_t target = static_cast<int64_t>(sm_count) * 4096;  // two waves of full SMs
    if (outputs < target) chunks = std::min((target + outputs - 1) / outputs, s.reduce / 64);
  }
  chunks = std::max<int64_t>(1, std::min<int64_t>(chunks, 65535));
  int64_t len = (s.reduce + chunks - 1) / chunks;
  len = std::max<int64_t>(16, (len + 15) / 16 * 16);  // whole vectors per chunk
  l.chunk_len = len;
  l.chunks = std::max<int64_t>(1, (s.reduce + len - 1) / len);
  if (l.chunks == 1) {
    l.chunk_len = std::max<int64_t>(s.reduce, 1);
    return 0;
  }
  return static_cast<size_t>(l.chunks * outputs) * 16;  // the widest accumulator is 16 bytes
}

void launch_reduce(const ReduceLaunch& l, void* stream_ptr) {
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  using ops::ReduceOp;
  switch (l.op) {
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return launch_reduce_extreme(l, stream);
    case ReduceOp::All:
      return run_reduce<ops::LogicalReducer<true>, bool>(l, stream);
    case ReduceOp::Any:
      return run_reduce<ops::LogicalReducer<false>, bool>(l, stream);
    default:
      break;
  }
  dispatch_dtype(l.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if constexpr (std::is_floating_point_v<C> || std::is_same_v<T, int64_t>) {
      if (l.op == ReduceOp::Sum) run_reduce<ops::SumReducer<C>, T>(l, stream);
      if (l.op == ReduceOp::Prod) run_reduce<ops::ProdReducer<C>, T>(l, stream);
      if constexpr (std::is_floating_point_v<C>)  // 16-bit floats square and sum in float
        if (l.op == ReduceOp::SumSquares) run_reduce<ops::SumSquaresReducer<C>, T>(l, stream);
      if constexpr (std::is_floating_point_v<C>)
        if (l.op == ReduceOp::SumExp) run_reduce<ops::SumExpReducer<C>, T>(l, stream);
    }
  });
}

}  // namespace genesis::kernels

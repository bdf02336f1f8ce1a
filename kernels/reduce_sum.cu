// Sum, prod, sum of squares, all, any; the chunk planning; the launch dispatch.
#include "kernels/reduce_loops.cuh"

namespace genesis::kernels {

void launch_reduce_extreme(const ReduceLaunch& l, cudaStream_t stream);  // reduce_extreme.cu
void launch_reduce_min_max(const ReduceLaunch& l, cudaStream_t stream);  // reduce_min_max.cu

// Note [Reduction chunks]: when the outputs alone leave the GPU idle (a full reduction, a few
// long rows), each row is cut into chunks, a block each, whose partials a final kernel combines.
// A chunk is at least 32 KiB of input: each thread then has eight 16-byte loads, most of them in
// flight at once, and the blocks are many (2048 for a full sum of 2^24 float32). Fewer, longer
// chunks (four blocks per SM, ~128 KiB each) and more, shorter ones (16 blocks per SM, ~8 KiB,
// each thread waiting on a load or two at a time) both read slower: H200 probe of a 64 MiB sum of
// squares, chunk kernel alone, 19.2 us (528 chunks) and 21.3 us (2112) against 18.1 us (2048 of
// 32 KiB), where reading alone took 17.9 us. At most 16384 partials in all (a 1 GiB input:
// 64 KiB chunks), so the final kernel's read stays short. On compute capability 9.0 the final
// kernel is launched as a programmatic dependent of the chunks' kernel: it is scheduled while the
// last chunks finish and waits for their partials in cudaGridDependencySynchronize, which hid
// most of its 2.8 us launch gap in the probe (20.8 -> 19.1 us).
constexpr int64_t kChunkBytes = 32 << 10, kMostPartials = 16384;

size_t plan_reduce(ReduceLaunch& l, int sm_count) {
  const ops::ReduceShape& s = l.shape;
  const int64_t outputs = s.outputs();
  int64_t chunks = 1;
  if (s.inner == 1) {
    int64_t blocks = s.reduce <= 512 ? (outputs + 7) / 8 : outputs;
    // enough blocks to fill the GPU, and chunks of 32 KiB (Note [Reduction chunks])
    int64_t target = static_cast<int64_t>(sm_count) * 4;
    if (blocks < target) {
      int64_t spread = std::min((target + blocks - 1) / blocks, s.reduce / 4096);
      int64_t tiles = s.reduce * l.item_bytes / kChunkBytes;
      chunks = std::max(spread, std::min(tiles, std::max<int64_t>(1, kMostPartials / blocks)));
    }
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
    case ReduceOp::MinMax:
      return launch_reduce_min_max(l, stream);
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

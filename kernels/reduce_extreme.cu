// max, min, argmax, argmin (values and first indices) for every dtype.
#include "kernels/reduce_loops.cuh"

namespace genesis::kernels {

namespace {

// ExtremeReducer with the device's shorter NaN rule (Note [NaN-propagating min and max] in
// reduce_min_max.cu): min.NaN / max.NaN for floats and the 16-bit floats, for doubles b taken
// when it is better or NaN (a NaN in a stays), integers as they were.
template <typename C, bool kMax>
struct DeviceExtremeReducer : ops::ExtremeReducer<C, kMax> {
  static __device__ __forceinline__ C combine(C a, C b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_same_v<C, float>) {
      float r;
      if constexpr (kMax)
        asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
      else
        asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
      return r;
    }
#endif
    if constexpr (std::is_floating_point_v<C>) return ((kMax ? b > a : b < a) || b != b) ? b : a;
    return ops::ExtremeReducer<C, kMax>::combine(a, b);
  }
};

}  // namespace

void launch_reduce_extreme(const ReduceLaunch& l, cudaStream_t stream) {
  using ops::ReduceOp;
  dispatch_dtype(l.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    switch (l.op) {
      case ReduceOp::Max:
        return run_reduce<DeviceExtremeReducer<C, true>, T>(l, stream);
      case ReduceOp::Min:
        return run_reduce<DeviceExtremeReducer<C, false>, T>(l, stream);
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

// aminmax: the smallest and the largest value in one read of the input, for every dtype (its
// own file so that it compiles beside the other reductions).
#include "kernels/reduce_loops.cuh"

namespace genesis::kernels {

namespace {

// Note [NaN-propagating min and max]: MinMaxReducer's combine tests both sides of both halves
// for NaN before comparing, about ten instructions an item, which held a 1 GiB float32 aminmax
// to 3.7 TB/s on an H200 (torch 4.0). Compute capability 8.0 has min.NaN and max.NaN, one
// instruction each that gives NaN when either side is NaN, which is ExtremeReducer's rule (the
// NaN's payload aside: the instruction returns the canonical NaN). Floats and the 16-bit floats
// (compared as floats) take them; doubles a shorter form of the same rule; integers the
// portable combine.
template <typename C>
struct DeviceMinMaxReducer : ops::MinMaxReducer<C> {
  using Acc = typename ops::MinMaxReducer<C>::Acc;
  static __device__ __forceinline__ Acc combine(Acc a, Acc b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_same_v<C, float>) {
      Acc r;
      asm("min.NaN.f32 %0, %1, %2;" : "=f"(r.lo) : "f"(a.lo), "f"(b.lo));
      asm("max.NaN.f32 %0, %1, %2;" : "=f"(r.hi) : "f"(a.hi), "f"(b.hi));
      return r;
    }
#endif
    if constexpr (std::is_floating_point_v<C>) {
      // Doubles: NaN sticks by the order of the tests (b is taken when it is smaller or NaN,
      // a kept otherwise, so a NaN in a stays): two tests a half where the portable combine has
      // three, and b's NaN test shared when b is one item (lo == hi).
      return {(b.lo < a.lo || b.lo != b.lo) ? b.lo : a.lo,
              (b.hi > a.hi || b.hi != b.hi) ? b.hi : a.hi};
    }
    return ops::MinMaxReducer<C>::combine(a, b);
  }
};

}  // namespace

void launch_reduce_min_max(const ReduceLaunch& l, cudaStream_t stream) {
  dispatch_dtype(l.dtype, [&](auto tag) {
    using T = decltype(tag);
    run_reduce<DeviceMinMaxReducer<compute_t<T>>, T>(l, stream);
  });
}

}  // namespace genesis::kernels

// Dropout's two passes on CUDA (Note [Fused dropout] in csrc/ops/dropout.cpp): one thread per
// group of four elements and one Philox call, the four loaded and stored together when aligned.
#include <cuda_runtime.h>

#include <type_traits>

#include "kernels/dropout.cuh"
#include "kernels/dtype_traits.cuh"
#include "vocab/philox.h"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

int grid_for(int64_t items) {
  int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65536 ? blocks : 65536);
}

// The compute type: double for float64, float otherwise.
template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
struct alignas(4 * sizeof(T)) Vec4 {
  T v[4];
};

struct alignas(4) Mask4 {
  bool v[4];
};

bool aligned(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

template <typename T>
__global__ void dropout_kernel(const T* __restrict__ x, T* __restrict__ out,
                               bool* __restrict__ mask, int64_t n, float keep, Compute<T> scale,
                               bool packed, uint64_t seed, uint64_t offset,
                               const uint64_t* __restrict__ state) {
  using C = Compute<T>;
  if (state) seed = state[0], offset += state[1];  // a graph's draw (Note [Random ops in graphs])
  const int64_t groups = (n + 3) / 4;
  for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < groups;
       g += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const philox::Words r = philox::philox4x32_10(offset + static_cast<uint64_t>(g), seed);
    const int64_t i = 4 * g;
    if (packed && i + 4 <= n) {
      const Vec4<T> in = *reinterpret_cast<const Vec4<T>*>(x + i);
      Vec4<T> o;
      Mask4 m;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        m.v[e] = philox::uniform_float(r.w[e], 1.0f) < keep;
        o.v[e] = convert<T>(convert<C>(in.v[e]) * (m.v[e] ? scale : C(0)));
      }
      *reinterpret_cast<Vec4<T>*>(out + i) = o;
      *reinterpret_cast<Mask4*>(mask + i) = m;
    } else {
      for (int e = 0; e < 4 && i + e < n; ++e) {
        const bool kept = philox::uniform_float(r.w[e], 1.0f) < keep;
        mask[i + e] = kept;
        out[i + e] = convert<T>(convert<C>(x[i + e]) * (kept ? scale : C(0)));
      }
    }
  }
}

template <typename T>
__global__ void masked_scale_kernel(const T* __restrict__ grad, const bool* __restrict__ mask,
                                    T* __restrict__ out, int64_t n, Compute<T> scale) {
  using C = Compute<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = convert<T>(convert<C>(grad[i]) * (mask[i] ? scale : C(0)));
}

// Calls f(T{}) for a floating dtype code.
template <typename F>
void floating(int dtype, F&& f) {
  switch (dtype) {
    case kFloat16:
      return f(__half{});
    case kBFloat16:
      return f(__nv_bfloat16{});
    case kFloat32:
      return f(float{});
    default:
      return f(double{});
  }
}

// The scale rounded to T, in the compute type (Note [Fused dropout]).
template <typename T>
Compute<T> rounded_scale(double scale) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(__double2half(scale));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(__double2bfloat16(scale));
  else
    return static_cast<Compute<T>>(scale);
}

}  // namespace

void launch_fused_dropout(const void* x, void* out, bool* mask, int dtype, int64_t n, float keep,
                          double scale, uint64_t seed, uint64_t offset, const uint64_t* state,
                          void* stream) {
  floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const bool packed = aligned(x, sizeof(Vec4<T>)) && aligned(out, sizeof(Vec4<T>)) &&
                        aligned(mask, sizeof(Mask4));
    dropout_kernel<T><<<grid_for((n + 3) / 4), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(x), static_cast<T*>(out), mask, n, keep, rounded_scale<T>(scale),
        packed, seed, offset, state);
  });
}

void launch_dropout_masked_scale(const void* grad, const bool* mask, void* out, int dtype,
                                 int64_t n, double scale, void* stream) {
  floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    masked_scale_kernel<T><<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(grad), mask, static_cast<T*>(out), n, rounded_scale<T>(scale));
  });
}

}  // namespace genesis::kernels

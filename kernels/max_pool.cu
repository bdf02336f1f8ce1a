// Max pooling: one thread per output item reads its window's taps (skipping those in the
// padding) and keeps the largest and its flat index in the input plane (threads in the output's
// memory order: channels-last neighbours read neighbouring channels, coalesced), in 32-bit index
// arithmetic when the sizes allow; a NaN wins (the last
// one in tap order, as in PyTorch). The backward is a scatter-add at those indices
// (genesis/nn/functional/_pooling.py).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/dtype_traits.cuh"
#include "kernels/max_pool.cuh"

namespace genesis::kernels {

namespace {

// The geometry in the kernel's index type: 32-bit when every offset fits (64-bit division is a
// long software sequence on the GPU, and each output item divides its index four times).
template <typename I>
struct Windows {
  I in[3], out[3], kernel[3], stride[3], pad[3], dilation[3];
  I channels;  // C when channels-last (planes interleaved), else 1

  explicit Windows(const PoolGeometry& g)
      : channels(static_cast<I>(g.channels_last ? g.channels : 1)) {
    for (int d = 0; d < 3; ++d) {
      in[d] = static_cast<I>(g.in[d]);
      out[d] = static_cast<I>(g.out[d]);
      kernel[d] = static_cast<I>(g.kernel[d]);
      stride[d] = static_cast<I>(g.stride[d]);
      pad[d] = static_cast<I>(g.pad[d]);
      dilation[d] = static_cast<I>(g.dilation[d]);
    }
  }
};

// C: the comparison type (float for 16-bit and float32 items, exact for them; double for
// float64).
template <typename T, typename C, typename I>
__global__ void max_pool_kernel(const T* __restrict__ x, Windows<I> g, T* __restrict__ values,
                                int64_t* __restrict__ indices, I total) {
  I outs = g.out[0] * g.out[1] * g.out[2];
  I plane_items = g.in[0] * g.in[1] * g.in[2];
  const I step = g.channels;  // between a plane's items
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<I>(gridDim.x) * blockDim.x) {
    // output i in memory order: (plane, o), or channels-last (n, o, c), neighbours in c
    I nc = i / step, c = i - nc * step;
    I p = nc / outs, o = nc - p * outs;  // p: the plane, or n when channels-last
    I o01 = o / g.out[2], o2 = o - o01 * g.out[2];
    I o0 = o01 / g.out[1], o1 = o01 - o0 * g.out[1];
    const T* plane = x + static_cast<int64_t>(p) * plane_items * step + c;
    C best = -INFINITY;
    I at = -1;
    for (I k0 = 0; k0 < g.kernel[0]; ++k0) {
      I i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
      if (i0 < 0 || i0 >= g.in[0]) continue;
      for (I k1 = 0; k1 < g.kernel[1]; ++k1) {
        I i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
        if (i1 < 0 || i1 >= g.in[1]) continue;
        for (I k2 = 0; k2 < g.kernel[2]; ++k2) {
          I i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
          if (i2 < 0 || i2 >= g.in[2]) continue;
          I flat = (i0 * g.in[1] + i1) * g.in[2] + i2;
          C v = convert<C>(plane[static_cast<int64_t>(flat) * step]);
          if (at < 0 || v > best || isnan(v)) {  // a NaN wins, the last one as in PyTorch
            best = v;
            at = flat;
          }
        }
      }
    }
    values[i] = at < 0 ? convert<T>(-INFINITY) : plane[static_cast<int64_t>(at) * step];
    indices[i] = at < 0 ? 0 : at;
  }
}

template <typename T, typename C>
void launch_typed(const void* x, const PoolGeometry& g, void* values, void* indices, int64_t total,
                  cudaStream_t s) {
  int threads = 256;
  int64_t blocks = (total + threads - 1) / threads;
  unsigned grid = static_cast<unsigned>(blocks < (int64_t{1} << 30) ? blocks : (int64_t{1} << 30));
  auto* xs = static_cast<const T*>(x);
  auto* vs = static_cast<T*>(values);
  auto* idx = static_cast<int64_t*>(indices);
  int64_t plane_items = g.in[0] * g.in[1] * g.in[2];
  // 32-bit indices when the items, a plane's padded extent and the grid's strides fit.
  int64_t reach = std::max(total + int64_t{grid} * threads, plane_items * g.planes);
  for (int d = 0; d < 3; ++d)
    reach = std::max(reach, (g.out[d] + 1) * g.stride[d] + g.kernel[d] * g.dilation[d] + g.pad[d]);
  if (reach < std::numeric_limits<int32_t>::max())
    max_pool_kernel<T, C, int32_t>
        <<<grid, threads, 0, s>>>(xs, Windows<int32_t>(g), vs, idx, static_cast<int32_t>(total));
  else
    max_pool_kernel<T, C, int64_t>
        <<<grid, threads, 0, s>>>(xs, Windows<int64_t>(g), vs, idx, total);
}

}  // namespace

void launch_max_pool(int dtype, const void* x, const PoolGeometry& g, void* values, void* indices,
                     void* stream) {
  int64_t total = g.planes * g.out[0] * g.out[1] * g.out[2];
  if (total == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  switch (dtype) {
    case kFloat16:
      return launch_typed<__half, float>(x, g, values, indices, total, s);
    case kBFloat16:
      return launch_typed<__nv_bfloat16, float>(x, g, values, indices, total, s);
    case kFloat32:
      return launch_typed<float, float>(x, g, values, indices, total, s);
    case kFloat64:
      return launch_typed<double, double>(x, g, values, indices, total, s);
    default:
      return;  // the caller checked the dtype
  }
}

}  // namespace genesis::kernels

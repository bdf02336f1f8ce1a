// Max pooling: one thread per output item reads its window's taps (skipping those in the
// padding) and keeps the largest and its flat index in the input plane; a NaN wins (the last
// one in tap order, as in PyTorch). The backward is a scatter-add at those indices
// (genesis/nn/functional/_pooling.py).
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/dtype_traits.cuh"
#include "kernels/max_pool.cuh"

namespace genesis::kernels {

namespace {

template <typename T>
__global__ void max_pool_kernel(const T* __restrict__ x, PoolGeometry g, T* __restrict__ values,
                                int64_t* __restrict__ indices, int64_t total) {
  int64_t outs = g.out[0] * g.out[1] * g.out[2];
  int64_t plane_items = g.in[0] * g.in[1] * g.in[2];
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t p = i / outs, o = i - p * outs;
    int64_t o2 = o % g.out[2], o1 = (o / g.out[2]) % g.out[1], o0 = o / (g.out[2] * g.out[1]);
    const T* plane = x + p * plane_items;
    double best_d = -INFINITY;
    int64_t at = -1;
    for (int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
      int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
      if (i0 < 0 || i0 >= g.in[0]) continue;
      for (int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
        int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
        if (i1 < 0 || i1 >= g.in[1]) continue;
        for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
          int64_t i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
          if (i2 < 0 || i2 >= g.in[2]) continue;
          int64_t flat = (i0 * g.in[1] + i1) * g.in[2] + i2;
          double v = to_double(plane[flat]);
          if (at < 0 || v > best_d || isnan(v)) {  // a NaN wins, the last one as in PyTorch
            best_d = v;
            at = flat;
          }
        }
      }
    }
    values[i] = at < 0 ? convert<T>(-INFINITY) : plane[at];
    indices[i] = at < 0 ? 0 : at;
  }
}

}  // namespace

void launch_max_pool(int dtype, const void* x, const PoolGeometry& g, void* values, void* indices,
                     void* stream) {
  int64_t total = g.planes * g.out[0] * g.out[1] * g.out[2];
  if (total == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  int threads = 256;
  int64_t blocks = (total + threads - 1) / threads;
  unsigned grid = static_cast<unsigned>(blocks < (int64_t{1} << 30) ? blocks : (int64_t{1} << 30));
  auto* idx = static_cast<int64_t*>(indices);
  switch (dtype) {
    case kFloat16:
      max_pool_kernel<__half><<<grid, threads, 0, s>>>(static_cast<const __half*>(x), g,
                                                       static_cast<__half*>(values), idx, total);
      break;
    case kBFloat16:
      max_pool_kernel<__nv_bfloat16><<<grid, threads, 0, s>>>(
          static_cast<const __nv_bfloat16*>(x), g, static_cast<__nv_bfloat16*>(values), idx, total);
      break;
    case kFloat32:
      max_pool_kernel<float><<<grid, threads, 0, s>>>(static_cast<const float*>(x), g,
                                                      static_cast<float*>(values), idx, total);
      break;
    case kFloat64:
      max_pool_kernel<double><<<grid, threads, 0, s>>>(static_cast<const double*>(x), g,
                                                       static_cast<double*>(values), idx, total);
      break;
    default:
      break;  // the caller checked the dtype
  }
}

}  // namespace genesis::kernels

#pragma once
// What the kernel probes in tools/ (norm_probe.cu, group_norm_probe.cu, batch_norm_probe.cu)
// share: a CUDA call checked, a median timing, a float32 comparison and a float32 fill. Measuring
// tools, not part of the build.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                             \
  do {                                                                    \
    cudaError_t e = (x);                                                  \
    if (e != cudaSuccess) {                                               \
      printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

namespace probe {

// Median of 20 timings (after 3 warm-ups) of f, in microseconds.
template <typename F>
float median_us(F f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < 20; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

// The largest |a[i] - b[i]| of n float32 items on the device.
inline float max_diff(const float* a, const float* b, int64_t n) {
  std::vector<float> x(n), y(n);
  CK(cudaMemcpy(x.data(), a, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(y.data(), b, n * 4, cudaMemcpyDeviceToHost));
  float m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

// Hashed values in [-1.5, 2.5), different for each seed.
__global__ void fill(float* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    uint32_t h = (static_cast<uint32_t>(i) ^ seed) * 2654435761u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    p[i] = static_cast<float>(h >> 8) / 16777216.0f * 4.0f - 1.5f;
  }
}

}  // namespace probe

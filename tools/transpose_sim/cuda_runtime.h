#pragma once
// A host stand-in for <cuda_runtime.h>, just enough for kernels/transpose_tiles.cuh: its kernel
// runs one block at a time, a std::thread per CUDA thread, a std::barrier for __syncthreads, and
// __shared__ arrays become function statics (one per kernel instantiation, shared by the block).
#include <barrier>
#include <cstdint>
#include <cstring>

struct SimDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local SimDim3 threadIdx;
inline thread_local SimDim3 blockIdx;
inline std::barrier<>* sim_barrier = nullptr;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

inline void __syncthreads() { sim_barrier->arrive_and_wait(); }

struct alignas(8) uint2 {
  uint32_t x, y;
};
inline uint2 make_uint2(uint32_t x, uint32_t y) { return {x, y}; }

// Byte n of the result is byte (s >> 4n) & 7 of the 8 bytes {x, y}.
inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  uint8_t in[8];
  std::memcpy(in, &x, 4);
  std::memcpy(in + 4, &y, 4);
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) r |= uint32_t(in[(s >> (4 * n)) & 7]) << (8 * n);
  return r;
}

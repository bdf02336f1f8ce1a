#pragma once
// GENESIS_HD marks small functions that both the C++ core and the CUDA kernels compile (the op
// functors, Philox); it expands to nothing outside nvcc, so core headers stay CUDA-free.
#ifdef __CUDACC__
#define GENESIS_HD __host__ __device__ __forceinline__
#else
#define GENESIS_HD inline
#endif

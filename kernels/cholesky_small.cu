// Note [Small Cholesky in shared memory]: for a batch of small matrices (n <= 64), one block
// factors one matrix held in shared memory, column by column (right-looking): the pivot's
// square root, the column below it divided by it, then the trailing lower triangle updated,
// two barriers per column. A matrix is read and written once, in one launch for the batch.
// cuSOLVER's potrfBatched (several kernels, a device array of pointers) took 0.79x PyTorch's
// time for 1024 matrices of 64 x 64 float32 on an H200, this 0.95x; its kernel alone is slower
// than cuSOLVER's (92 against 71 us there), so csrc/cuda/solver.cpp sends it at most 1024
// matrices (Note [Batched small matrices]; benchmarks/results/2026-11-29-session13.txt).
// Rounding differs from cuSOLVER's blocked order only in the last bits.
#include <cuda_runtime.h>

#include "kernels/cholesky_small.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void cholesky_small_kernel(T* __restrict__ matrices, int n, bool colmajor_lower,
                                      int* __restrict__ info) {
  extern __shared__ unsigned char raw[];
  // The row-major lower triangle of the working matrix, rows n + 1 apart so that a column's
  // items fall in different banks.
  T* s = reinterpret_cast<T*>(raw);
  const int ld = n + 1;
  T* a = matrices + static_cast<int64_t>(blockIdx.x) * n * n;
  // Row-major element (i, k), i >= k, of the triangle read: (i, k) itself, or (k, i) when the
  // column-major lower triangle (the row-major upper one) is asked for.
  auto at = [&](int i, int k) -> T& { return colmajor_lower ? a[k * n + i] : a[i * n + k]; };
  for (int e = threadIdx.x; e < n * n; e += kThreads) {
    int i = e / n, k = e % n;
    if (k <= i) s[i * ld + k] = at(i, k);
  }
  __syncthreads();
  // The trailing update runs on a 16 x 16 grid of threads over (row i, column k).
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int done = n;  // columns factored
  for (int j = 0; j < n; ++j) {
    T pivot = s[j * ld + j];
    // Not positive: the leading minor of order j + 1 fails. A NaN goes on (and spreads), as
    // in the CPU's factorisation.
    if (pivot <= T(0)) {
      done = j;
      break;
    }
    T root = sqrt(pivot);
    for (int i = j + 1 + threadIdx.x; i < n; i += kThreads) s[i * ld + j] /= root;
    __syncthreads();
    if (threadIdx.x == 0) s[j * ld + j] = root;
    for (int i = j + 1 + ty; i < n; i += 16) {
      T lij = s[i * ld + j];
      for (int k = j + 1 + tx; k <= i; k += 16) s[i * ld + k] -= lij * s[k * ld + j];
    }
    __syncthreads();
  }
  // Every thread read the same pivots, so `done` agrees across the block. The factored columns
  // go back (after a failure with the partly updated rest, as potrf leaves its workspace).
  for (int e = threadIdx.x; e < n * n; e += kThreads) {
    int i = e / n, k = e % n;
    if (k <= i) at(i, k) = s[i * ld + k];
  }
  if (threadIdx.x == 0) info[blockIdx.x] = done == n ? 0 : done + 1;
}

}  // namespace

void launch_cholesky_small(void* a, bool is_double, int n, int64_t batch, bool colmajor_lower,
                           int* info, void* stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  size_t bytes = static_cast<size_t>(n) * (n + 1) * (is_double ? sizeof(double) : sizeof(float));
  // One launch per 2^31 - 1 matrices (a grid's x dimension); batches are far smaller.
  for (int64_t first = 0; first < batch; first += 0x7fffffff) {
    unsigned blocks =
        static_cast<unsigned>(batch - first < 0x7fffffff ? batch - first : 0x7fffffff);
    if (is_double)
      cholesky_small_kernel<double><<<blocks, kThreads, bytes, stream>>>(
          static_cast<double*>(a) + first * n * n, n, colmajor_lower, info + first);
    else
      cholesky_small_kernel<float><<<blocks, kThreads, bytes, stream>>>(
          static_cast<float*>(a) + first * n * n, n, colmajor_lower, info + first);
  }
}

}  // namespace genesis::kernels

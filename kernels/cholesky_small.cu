// Note [Small Cholesky in shared memory]: for a batch of small matrices (n <= 64), a block of
// 256 threads factors matrices held in shared memory, column by column (right-looking): the
// pivot's square root, and the trailing lower triangle updated by a_ij * a_kj / pivot while the
// column below it is divided by the root one step later, when nothing reads it: one barrier per
// column. Each matrix has a kSide x kSide grid of threads, 16 x 16 for orders over 32, 8 x 8 up
// to 32, 4 x 4 up to 16, so a block holds 1, 4 or 16 matrices: a multiprocessor keeps at most
// 2048 threads, and the fewer threads a matrix has, the more matrices advance at once (each one
// mostly waits on its chain of columns). A matrix is read and written once (the other triangle
// as zeros, so linalg.cholesky needs no tril_), in one launch for the batch.
// On an H200 (float32, the op against PyTorch's cuSOLVER call): 1024 matrices of 64 x 64
// 1.08-1.22x, 16384 of 32 x 32 1.34x, of 16 x 16 1.07x; cuSOLVER's potrfBatched (several
// kernels, a device array of pointers) took 0.79x at the first. Over 32 the kernel is slower per
// matrix than cuSOLVER's batched one, so csrc/cuda/solver.cpp sends it at most 1024 matrices of
// such orders (Note [Batched small matrices]; benchmarks/results/2026-11-29-session14.txt).
// Rounding differs from cuSOLVER's blocked order only in the last bits.
#include <cuda_runtime.h>

#include "kernels/cholesky_small.cuh"

namespace genesis::kernels {

namespace {

constexpr int kBlockThreads = 256;

template <typename T, int kSide>
__global__ void __launch_bounds__(kBlockThreads)
    cholesky_small_kernel(T* __restrict__ matrices, int n, int64_t batch, bool colmajor_lower,
                          int* __restrict__ info) {
  constexpr int kPerMatrix = kSide * kSide;
  constexpr int kMatrices = kBlockThreads / kPerMatrix;
  extern __shared__ unsigned char raw[];
  const int ld = n + 1;
  const int slot = threadIdx.x / kPerMatrix, t = threadIdx.x % kPerMatrix;
  const int64_t m = static_cast<int64_t>(blockIdx.x) * kMatrices + slot;
  const bool active = m < batch;  // the last block's spare slots still meet every barrier
  // This matrix's row-major lower triangle, rows n + 1 apart so that a column's items fall in
  // different banks.
  T* s = reinterpret_cast<T*>(raw) + slot * n * ld;
  T* a = matrices + m * n * n;
  // Memory offset e of the matrix as row-major (i, k) of the triangle worked on: (i, k) itself,
  // or (k, i) when the column-major lower triangle (the row-major upper one) is asked for. The
  // loops below walk memory in order, so global reads and writes are coalesced either way.
  auto row_col = [&](int e, int& i, int& k) {
    i = colmajor_lower ? e % n : e / n;
    k = colmajor_lower ? e / n : e % n;
  };
  if (active) {
    for (int e = t; e < n * n; e += kPerMatrix) {
      int i, k;
      row_col(e, i, k);
      if (k <= i) s[i * ld + k] = a[e];
    }
  }
  __syncthreads();
  const int tx = t % kSide, ty = t / kSide;
  int done = n;         // columns factored
  bool going = active;  // the same for all of a matrix's threads: they read the same pivots
  T root = T(1);        // the previous column's pivot root
  for (int j = 0; j <= n; ++j) {
    // Column j - 1 is divided by its root now, one step late: nothing reads it in this step.
    if (going && j > 0) {
      for (int i = j + t; i < n; i += kPerMatrix) s[i * ld + j - 1] /= root;
      if (t == 0) s[(j - 1) * ld + j - 1] = root;
    }
    if (going && j < n) {
      T pivot = s[j * ld + j];
      // Not positive: the leading minor of order j + 1 fails. A NaN goes on (and spreads), as
      // in the CPU's factorisation.
      if (pivot <= T(0)) {
        done = j;
        going = false;
      } else {
        root = sqrt(pivot);
        // l_ij * l_kj = a_ij * a_kj / pivot with column j not yet divided.
        const T inverse = T(1) / pivot;
        for (int i = j + 1 + ty; i < n; i += kSide) {
          T lij = s[i * ld + j] * inverse;
          for (int k = j + 1 + tx; k <= i; k += kSide) s[i * ld + k] -= lij * s[k * ld + j];
        }
      }
    }
    __syncthreads();
  }
  if (!active) return;
  // The factored columns go back (after a failure with the partly updated rest, as potrf leaves
  // its workspace), the other triangle as zeros.
  for (int e = t; e < n * n; e += kPerMatrix) {
    int i, k;
    row_col(e, i, k);
    a[e] = k <= i ? s[i * ld + k] : T(0);
  }
  if (t == 0) info[m] = done == n ? 0 : done + 1;
}

template <typename T, int kSide>
void launch_sized(T* a, int n, int64_t batch, bool colmajor_lower, int* info, cudaStream_t stream) {
  constexpr int kMatrices = kBlockThreads / (kSide * kSide);
  const size_t bytes = static_cast<size_t>(kMatrices) * n * (n + 1) * sizeof(T);
  // At most 2^31 - 1 blocks a launch (a grid's x dimension); batches are far smaller.
  constexpr int64_t kMostMatrices = int64_t{0x7fffffff} * kMatrices;
  for (int64_t first = 0; first < batch; first += kMostMatrices) {
    const int64_t count = batch - first < kMostMatrices ? batch - first : kMostMatrices;
    const auto blocks = static_cast<unsigned>((count + kMatrices - 1) / kMatrices);
    cholesky_small_kernel<T, kSide><<<blocks, kBlockThreads, bytes, stream>>>(
        a + first * n * n, n, count, colmajor_lower, info + first);
  }
}

template <typename T>
void launch_typed(T* a, int n, int64_t batch, bool colmajor_lower, int* info, cudaStream_t stream) {
  if (n <= 16)
    launch_sized<T, 4>(a, n, batch, colmajor_lower, info, stream);
  else if (n <= kSmallCholeskyNarrowOrder)
    launch_sized<T, 8>(a, n, batch, colmajor_lower, info, stream);
  else
    launch_sized<T, 16>(a, n, batch, colmajor_lower, info, stream);
}

}  // namespace

void launch_cholesky_small(void* a, bool is_double, int n, int64_t batch, bool colmajor_lower,
                           int* info, void* stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (is_double)
    launch_typed(static_cast<double*>(a), n, batch, colmajor_lower, info, stream);
  else
    launch_typed(static_cast<float*>(a), n, batch, colmajor_lower, info, stream);
}

}  // namespace genesis::kernels

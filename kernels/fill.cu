#include <cuda_runtime.h>

#include "kernels/fill.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

// 16-byte stores over the aligned middle, one item at a time over the ends.
template <typename Word>
__global__ void fill_words(Word* dst, int64_t count, Word value) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (; i < count; i += stride) dst[i] = value;
}

__global__ void fill_vec16(uint4* dst, int64_t count, uint4 value) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (; i < count; i += stride) dst[i] = value;
}

int grid_for(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65536 ? blocks : 65536);
}

template <typename Word>
void fill_typed(void* dst, int64_t count, uint64_t pattern, cudaStream_t stream) {
  Word value = static_cast<Word>(pattern);
  char* p = static_cast<char*>(dst);
  // Items before the first 16-byte boundary.
  int64_t head = (16 - reinterpret_cast<uintptr_t>(p) % 16) % 16 / sizeof(Word);
  if (reinterpret_cast<uintptr_t>(p) % sizeof(Word) != 0 || head > count) head = count;
  if (head > 0)
    fill_words<Word>
        <<<grid_for(head), kThreads, 0, stream>>>(reinterpret_cast<Word*>(p), head, value);
  p += head * sizeof(Word);
  int64_t rest = count - head;
  int64_t vecs = rest * static_cast<int64_t>(sizeof(Word)) / 16;
  if (vecs > 0) {
    uint4 v;
    Word* lanes = reinterpret_cast<Word*>(&v);
    for (size_t k = 0; k < 16 / sizeof(Word); ++k) lanes[k] = value;
    fill_vec16<<<grid_for(vecs), kThreads, 0, stream>>>(reinterpret_cast<uint4*>(p), vecs, v);
  }
  int64_t done = vecs * 16 / static_cast<int64_t>(sizeof(Word));
  int64_t tail = rest - done;
  if (tail > 0)
    fill_words<Word>
        <<<grid_for(tail), kThreads, 0, stream>>>(reinterpret_cast<Word*>(p) + done, tail, value);
}

}  // namespace

void launch_fill(void* dst, int64_t count, int itemsize, uint64_t pattern, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (itemsize) {
    case 1:
      return fill_typed<uint8_t>(dst, count, pattern, s);
    case 2:
      return fill_typed<uint16_t>(dst, count, pattern, s);
    case 4:
      return fill_typed<uint32_t>(dst, count, pattern, s);
    case 8:
      return fill_typed<unsigned long long>(dst, count, pattern, s);
  }
}

}  // namespace genesis::kernels

namespace genesis::kernels {

namespace {
__global__ void sequence_f64(double* out, int64_t n, double start, double step, double end,
                             int64_t half) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = i < half ? start + step * static_cast<double>(i)
                      : end - step * static_cast<double>(n - 1 - i);
}

__global__ void sequence_i64(int64_t* out, int64_t n, int64_t start, int64_t step) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = start + i * step;
}
}  // namespace

void launch_sequence_f64(double* out, int64_t n, double start, double step, double end,
                         int64_t half, void* stream) {
  sequence_f64<<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(out, n, start, step,
                                                                                end, half);
}

void launch_sequence_i64(int64_t* out, int64_t n, int64_t start, int64_t step, void* stream) {
  sequence_i64<<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(out, n, start,
                                                                                step);
}

}  // namespace genesis::kernels

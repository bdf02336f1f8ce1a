// nonzero of a 1-d CUDA mask as one CUB flagged select over a counting iterator: the positions
// of the true items, written in order (Note [Mask compaction] in index.cuh covers the n-d case).
#include <cuda_runtime.h>

#include <thrust/iterator/counting_iterator.h>
#include <cstdint>
#include <cub/device/device_select.cuh>

#include "kernels/nonzero.cuh"

namespace genesis::kernels {

int select_true_positions(const bool* mask, int64_t n, int64_t* out, void* scratch,
                          size_t* scratch_bytes, void* stream) {
  // The selected count goes to the first 8 bytes of scratch; CUB's storage follows, aligned.
  constexpr size_t kCountBytes = 256;
  thrust::counting_iterator<int64_t> positions(0);
  size_t cub_bytes = 0;
  cudaError_t err = cub::DeviceSelect::Flagged(nullptr, cub_bytes, positions, mask, out,
                                               static_cast<int64_t*>(nullptr), n,
                                               static_cast<cudaStream_t>(stream));
  if (err != cudaSuccess) return err;
  if (scratch == nullptr) {
    *scratch_bytes = kCountBytes + cub_bytes;
    return cudaSuccess;
  }
  auto* base = static_cast<unsigned char*>(scratch);
  return cub::DeviceSelect::Flagged(base + kCountBytes, cub_bytes, positions, mask, out,
                                    reinterpret_cast<int64_t*>(base), n,
                                    static_cast<cudaStream_t>(stream));
}

}  // namespace genesis::kernels

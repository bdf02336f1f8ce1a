// Sorted unique integers, with counts when asked, by CUB (Note [Unique of integers]).
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>

#include "kernels/dtype_traits.cuh"
#include "kernels/unique.cuh"

namespace genesis::kernels {

// Note [Unique of integers]
// unique() without an inverse needs no positions: the keys alone are sorted (CUB's radix sort
// of the integers themselves, half the traffic of a sort that carries int64 positions), then
// one CUB pass keeps the first of each run (DeviceSelect::Unique), or the run's value and
// length (DeviceRunLengthEncode::Encode) when counts are asked. The caller may pass the bits
// that can differ: every integer between the smallest and the largest shares the bits above
// the highest bit where those two differ (also for signed types: CUB's key flips the sign
// bit of both), so the sort only looks at the bits below it: values under 2^16 in int64 sort
// in two passes of 8 bits instead of eight. Integers decode from their sorted keys as
// themselves, so nothing is read back through positions (floats have several values per key
// and are not taken here).

namespace {

size_t align_up(size_t bytes) { return (bytes + 255) & ~size_t(255); }

template <typename T>
int unique_sorted(const T* values, int64_t n, int end_bit, T* unique_out, int64_t* counts_out,
                  int64_t* num_out, void* scratch, size_t* scratch_bytes, cudaStream_t stream) {
  size_t sort_bytes = 0, pass_bytes = 0;
  cudaError_t err = cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, values,
                                                   static_cast<T*>(nullptr), n, 0, end_bit, stream);
  if (err != cudaSuccess) return err;
  if (counts_out != nullptr)
    err = cub::DeviceRunLengthEncode::Encode(nullptr, pass_bytes, static_cast<const T*>(nullptr),
                                             unique_out, counts_out, num_out, n, stream);
  else
    err = cub::DeviceSelect::Unique(nullptr, pass_bytes, static_cast<const T*>(nullptr), unique_out,
                                    num_out, n, stream);
  if (err != cudaSuccess) return err;
  // Scratch: the sorted keys | CUB's storage (for the sort, then the pass).
  size_t off_temp = align_up(static_cast<size_t>(n) * sizeof(T));
  size_t temp_bytes = sort_bytes > pass_bytes ? sort_bytes : pass_bytes;
  if (scratch == nullptr) {
    *scratch_bytes = off_temp + temp_bytes;
    return cudaSuccess;
  }
  T* sorted = static_cast<T*>(scratch);
  void* temp = static_cast<char*>(scratch) + off_temp;
  size_t bytes = temp_bytes;
  err = cub::DeviceRadixSort::SortKeys(temp, bytes, values, sorted, n, 0, end_bit, stream);
  if (err != cudaSuccess) return err;
  bytes = temp_bytes;
  if (counts_out != nullptr)
    return cub::DeviceRunLengthEncode::Encode(temp, bytes, static_cast<const T*>(sorted),
                                              unique_out, counts_out, num_out, n, stream);
  return cub::DeviceSelect::Unique(temp, bytes, static_cast<const T*>(sorted), unique_out, num_out,
                                   n, stream);
}

}  // namespace

int unique_integers(int dtype, const void* values, int64_t n, int end_bit, void* unique_out,
                    int64_t* counts_out, int64_t* num_out, void* scratch, size_t* scratch_bytes,
                    void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  auto run = [&](auto zero) -> int {
    using T = decltype(zero);
    int bits = end_bit < 0 || end_bit > static_cast<int>(8 * sizeof(T)) ? 8 * sizeof(T) : end_bit;
    return unique_sorted(static_cast<const T*>(values), n, bits, static_cast<T*>(unique_out),
                         counts_out, num_out, scratch, scratch_bytes, s);
  };
  switch (dtype) {
    case kBool:  // 0 and 1, sorted as bytes
    case kUInt8:
      return run(uint8_t{});
    case kInt8:
      return run(int8_t{});
    case kInt16:
      return run(int16_t{});
    case kInt32:
      return run(int32_t{});
    case kInt64:
      return run(int64_t{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace genesis::kernels

// Sorted unique integers, with counts when asked, and sorted unique floats, by CUB (Note [Unique
// of integers], Note [Unique of floats]).
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>

#include "kernels/dtype_traits.cuh"
#include "kernels/sort_keys.cuh"
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

// Note [Unique of floats]
// Floats are sorted by their keys of Note [Sort keys] (every NaN has one key, the largest, and
// -0.0 and +0.0 share one), as unsigned integers, with no positions. One pass then decodes each
// sorted key back into its value and flags the first of each run of equal values; a NaN key
// always starts a run of its own, since NaN equals nothing (torch keeps every NaN too). CUB's
// DeviceSelect::Flagged keeps the flagged values. A run of zeros comes out as +0.0 and a NaN
// as the canonical quiet NaN: the sorted keys no longer say which zero or payload was there.

template <typename U>
__global__ void float_keys(const U* values, U* keys, int64_t n, KeyFormat<U> format) {
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    keys[i] = key_of(values[i], format);
}

// values[i] = the value of sorted key i; starts[i] = whether it begins a run of equal values.
template <typename U>
__global__ void decode_runs(const U* sorted, U* values, uint8_t* starts, int64_t n) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  constexpr U nan_key = U(~U(0));
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    U key = sorted[i];
    starts[i] = i == 0 || key == nan_key || key != sorted[i - 1];
    values[i] = (key & sign) ? static_cast<U>(key & ~sign) : static_cast<U>(~key);
  }
}

template <typename U>
int unique_float_keys(const U* values, int64_t n, KeyFormat<U> format, U* unique_out,
                      int64_t* num_out, void* scratch, size_t* scratch_bytes, cudaStream_t stream) {
  size_t sort_bytes = 0, pass_bytes = 0;
  cudaError_t err = cub::DeviceRadixSort::SortKeys(
      nullptr, sort_bytes, static_cast<const U*>(nullptr), static_cast<U*>(nullptr), n, 0,
      static_cast<int>(8 * sizeof(U)), stream);
  if (err != cudaSuccess) return err;
  err = cub::DeviceSelect::Flagged(nullptr, pass_bytes, static_cast<const U*>(nullptr),
                                   static_cast<const uint8_t*>(nullptr), unique_out, num_out, n,
                                   stream);
  if (err != cudaSuccess) return err;
  // Scratch: the keys (then the decoded values) | the sorted keys | the run starts | CUB's.
  size_t off_sorted = align_up(static_cast<size_t>(n) * sizeof(U));
  size_t off_starts = off_sorted + off_sorted;
  size_t off_temp = off_starts + align_up(static_cast<size_t>(n));
  size_t temp_bytes = sort_bytes > pass_bytes ? sort_bytes : pass_bytes;
  if (scratch == nullptr) {
    *scratch_bytes = off_temp + temp_bytes;
    return cudaSuccess;
  }
  char* base = static_cast<char*>(scratch);
  U* keys = reinterpret_cast<U*>(base);
  U* sorted = reinterpret_cast<U*>(base + off_sorted);
  uint8_t* starts = reinterpret_cast<uint8_t*>(base + off_starts);
  void* temp = base + off_temp;
  constexpr int kThreads = 256;
  int64_t blocks64 = (n + kThreads - 1) / kThreads;
  int blocks = static_cast<int>(blocks64 < 65536 ? blocks64 : 65536);
  float_keys<<<blocks, kThreads, 0, stream>>>(values, keys, n, format);
  size_t bytes = temp_bytes;
  err = cub::DeviceRadixSort::SortKeys(temp, bytes, keys, sorted, n, 0,
                                       static_cast<int>(8 * sizeof(U)), stream);
  if (err != cudaSuccess) return err;
  decode_runs<<<blocks, kThreads, 0, stream>>>(sorted, keys, starts, n);
  bytes = temp_bytes;
  return cub::DeviceSelect::Flagged(temp, bytes, static_cast<const U*>(keys),
                                    static_cast<const uint8_t*>(starts), unique_out, num_out, n,
                                    stream);
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

int unique_floats(int dtype, const void* values, int64_t n, void* unique_out, int64_t* num_out,
                  void* scratch, size_t* scratch_bytes, void* stream) {
  if (dtype != kFloat16 && dtype != kBFloat16 && dtype != kFloat32 && dtype != kFloat64)
    return cudaErrorInvalidValue;
  return with_key_format(dtype, [&](auto format) -> int {
    using U = decltype(format.inf_bits);
    return unique_float_keys(static_cast<const U*>(values), n, format, static_cast<U*>(unique_out),
                             num_out, scratch, scratch_bytes, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace genesis::kernels

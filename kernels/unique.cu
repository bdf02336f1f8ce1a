// Sorted unique integers, with counts when asked, and sorted unique floats, by CUB (Note [Unique
// of integers], Note [Unique of floats]).
#include <cuda_runtime.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cstdint>
#include <cstring>
#include <type_traits>

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

// Note [Unique of floats]
// Floats are sorted as themselves by CUB's radix sort of keys alone (no positions, no pass that
// makes keys first): CUB orders by the sign-flipped bits, so the sorted run is: NaNs with the
// sign bit set, -inf, the negatives, -0.0, +0.0, the positives, +inf, NaNs without it. One
// lookup counts the leading NaNs (a binary search, one thread); DeviceSelect::Flagged then reads
// the sorted values rotated by that count, so every NaN comes last, as torch puts them, through
// transform iterators: the values themselves, and as the flags whether each begins a run of
// equal values, so nothing is decoded or flagged into memory first. -0.0 equals +0.0, so a run
// of zeros is one value (its first, -0.0 when the input holds one), and a NaN equals nothing,
// so every NaN is kept (torch keeps every NaN too), its bits as they were.
template <typename T>
__device__ __forceinline__ float as_float(T v) {
  return convert<float>(v);
}
__device__ __forceinline__ double as_float(double v) { return v; }

template <typename T>
__device__ __forceinline__ bool sign_bit(T v) {
  using Bits = std::conditional_t<sizeof(T) == 2, uint16_t,
                                  std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  Bits bits;
  memcpy(&bits, &v, sizeof(T));
  return (bits >> (8 * sizeof(T) - 1)) != 0;
}

// The number of NaNs before the first number in sorted[0, n): 0 when sorted[0] is a number.
template <typename T>
__global__ void count_leading_nans(const T* sorted, int64_t n, int64_t* lead) {
  int64_t lo = 0, hi = n;  // the answer lies in [lo, hi]
  if (n == 0 || !(as_float(sorted[0]) != as_float(sorted[0]))) hi = 0;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    auto v = as_float(sorted[mid]);
    // The leading NaNs are negative, the trailing ones positive: a NaN at mid is leading while
    // its sign bit is set. The bit is read from the stored bits: converting a float16 NaN to
    // float (cvt) gives the canonical NaN, whose sign bit is clear.
    if (v != v && sign_bit(sorted[mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  *lead = lo;
}

template <typename T>
struct Rotated {
  const T* sorted;
  const int64_t* lead;  // device memory, written by count_leading_nans
  int64_t n;
  __device__ __forceinline__ int64_t at(int64_t i) const {
    int64_t j = i + *lead;
    return j < n ? j : j - n;
  }
};

template <typename T>
struct RotatedValue : Rotated<T> {
  __device__ T operator()(int64_t i) const { return this->sorted[this->at(i)]; }
};

template <typename T>
struct RotatedRunStart : Rotated<T> {
  __device__ uint8_t operator()(int64_t i) const {
    if (i == 0) return 1;
    auto v = as_float(this->sorted[this->at(i)]);
    auto before = as_float(this->sorted[this->at(i - 1)]);
    return v != before;  // a NaN differs from everything
  }
};

template <typename T>
int unique_float_values(const T* values, int64_t n, T* unique_out, int64_t* num_out, void* scratch,
                        size_t* scratch_bytes, cudaStream_t stream) {
  auto index = thrust::make_counting_iterator<int64_t>(0);
  auto rotated = thrust::make_transform_iterator(index, RotatedValue<T>{{nullptr, nullptr, n}});
  auto starts = thrust::make_transform_iterator(index, RotatedRunStart<T>{{nullptr, nullptr, n}});
  size_t sort_bytes = 0, pass_bytes = 0;
  cudaError_t err =
      cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, values, static_cast<T*>(nullptr), n, 0,
                                     static_cast<int>(8 * sizeof(T)), stream);
  if (err != cudaSuccess) return err;
  err = cub::DeviceSelect::Flagged(nullptr, pass_bytes, rotated, starts, unique_out, num_out, n,
                                   stream);
  if (err != cudaSuccess) return err;
  // Scratch: the sorted values | the leading NaN count | CUB's storage.
  size_t off_lead = align_up(static_cast<size_t>(n) * sizeof(T));
  size_t off_temp = off_lead + align_up(sizeof(int64_t));
  size_t temp_bytes = sort_bytes > pass_bytes ? sort_bytes : pass_bytes;
  if (scratch == nullptr) {
    *scratch_bytes = off_temp + temp_bytes;
    return cudaSuccess;
  }
  char* base = static_cast<char*>(scratch);
  T* sorted = reinterpret_cast<T*>(base);
  int64_t* lead = reinterpret_cast<int64_t*>(base + off_lead);
  void* temp = base + off_temp;
  size_t bytes = temp_bytes;
  err = cub::DeviceRadixSort::SortKeys(temp, bytes, values, sorted, n, 0,
                                       static_cast<int>(8 * sizeof(T)), stream);
  if (err != cudaSuccess) return err;
  count_leading_nans<<<1, 1, 0, stream>>>(sorted, n, lead);
  rotated = thrust::make_transform_iterator(index, RotatedValue<T>{{sorted, lead, n}});
  starts = thrust::make_transform_iterator(index, RotatedRunStart<T>{{sorted, lead, n}});
  bytes = temp_bytes;
  return cub::DeviceSelect::Flagged(temp, bytes, rotated, starts, unique_out, num_out, n, stream);
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
  auto run = [&](auto zero) -> int {
    using T = decltype(zero);
    return unique_float_values(static_cast<const T*>(values), n, static_cast<T*>(unique_out),
                               num_out, scratch, scratch_bytes, static_cast<cudaStream_t>(stream));
  };
  switch (dtype) {
    case kFloat16:
      return run(__half{});
    case kBFloat16:
      return run(__nv_bfloat16{});
    case kFloat32:
      return run(float{});
    case kFloat64:
      return run(double{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace genesis::kernels

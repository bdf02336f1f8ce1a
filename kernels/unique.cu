// Sorted unique integers, with counts when asked, and sorted unique floats, by CUB (Note [Unique
// of integers], Note [Unique of floats]).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/dispatch/dispatch_select_if.cuh>

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
// sign bit set, -inf, the negatives, -0.0, +0.0, the positives, +inf, NaNs without it. One CUB
// select then keeps the first of each run of equal values, equal as floats compare: -0.0 equals
// +0.0, so a run of zeros is one value (its first), and a NaN equals nothing, so every NaN is
// kept (torch keeps every NaN too), its bits as they were. That leaves the NaNs with the sign
// bit set in front; one lookup counts them (a binary search, one thread) and the caller, which
// reads the count of values anyway, moves them last when there are any (rare: arithmetic makes
// NaNs without the sign bit), as torch puts every NaN last. The select reads the sorted values
// directly: an earlier form read them rotated through transform iterators and ran at half the
// speed of CUB's plain select.
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

// Equal as floats: -0.0 == +0.0, NaN equals nothing.
struct FloatEqual {
  template <typename T>
  __device__ __forceinline__ bool operator()(const T& a, const T& b) const {
    return as_float(a) == as_float(b);
  }
};

// cub::DeviceSelect::Unique with FloatEqual for its equality (its own overload compares with
// operator==, which 16-bit floats may not define for the device).
template <typename T>
cudaError_t select_first_of_runs(void* temp, size_t& bytes, const T* sorted, T* out,
                                 int64_t* num_out, int64_t n, cudaStream_t stream) {
  using Dispatch = cub::DispatchSelectIf<const T*, cub::NullType*, T*, int64_t*, cub::NullType,
                                         FloatEqual, int64_t, cub::SelectImpl::Select>;
  return Dispatch::Dispatch(temp, bytes, sorted, nullptr, out, num_out, cub::NullType(),
                            FloatEqual(), n, stream);
}

template <typename T>
int unique_float_values(const T* values, int64_t n, T* unique_out, int64_t* num_out, void* scratch,
                        size_t* scratch_bytes, cudaStream_t stream) {
  size_t sort_bytes = 0, pass_bytes = 0;
  cudaError_t err =
      cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, values, static_cast<T*>(nullptr), n, 0,
                                     static_cast<int>(8 * sizeof(T)), stream);
  if (err != cudaSuccess) return err;
  err = select_first_of_runs<T>(nullptr, pass_bytes, nullptr, nullptr, nullptr, n, stream);
  if (err != cudaSuccess) return err;
  // Scratch: the sorted values | CUB's storage.
  size_t off_temp = align_up(static_cast<size_t>(n) * sizeof(T));
  size_t temp_bytes = sort_bytes > pass_bytes ? sort_bytes : pass_bytes;
  if (scratch == nullptr) {
    *scratch_bytes = off_temp + temp_bytes;
    return cudaSuccess;
  }
  char* base = static_cast<char*>(scratch);
  T* sorted = reinterpret_cast<T*>(base);
  void* temp = base + off_temp;
  size_t bytes = temp_bytes;
  err = cub::DeviceRadixSort::SortKeys(temp, bytes, values, sorted, n, 0,
                                       static_cast<int>(8 * sizeof(T)), stream);
  if (err != cudaSuccess) return err;
  count_leading_nans<<<1, 1, 0, stream>>>(sorted, n, num_out + 1);
  bytes = temp_bytes;
  return select_first_of_runs<T>(temp, bytes, sorted, unique_out, num_out, n, stream);
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

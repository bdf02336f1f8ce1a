// Note [CUB row scans]
// Every scan runs as one cub::DeviceScan::InclusiveScanByKey over all n items of a contiguous
// tensor whose rows (of len items) are the lines to scan: the key of item i is its row, i / len
// (a transform of a counting iterator, never stored), so the scan restarts at each row and one
// launch serves any number and length of rows. Items are read through a transform iterator that
// converts them to the accumulator of Note [Scans] and written through one that converts back.
// cummax/cummin scan (value, position in row) pairs, written through a zip of the two outputs.
// CUB's scratch comes from genesis's pool (cuda/scan.cpp).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include <type_traits>

#include "kernels/dtype_traits.cuh"
#include "kernels/elementwise_loops.cuh"
#include "kernels/scan.cuh"
#include "vocab/scan_functors.h"

namespace genesis::kernels {

namespace {

template <typename T>
constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// Sums and products: float for the 16-bit floats, the type for float32/64, int64 for integers.
template <typename T>
using sum_acc_t = std::conditional_t<is_half_v<T>, float,
                                     std::conditional_t<std::is_floating_point_v<T>, T, int64_t>>;
// Comparisons: float for the 16-bit floats, the type itself otherwise.
template <typename T>
using cmp_acc_t = std::conditional_t<is_half_v<T>, float, T>;

template <typename To>
struct ConvertTo {
  template <typename From>
  __host__ __device__ To operator()(From v) const {
    return convert<To>(v);
  }
};

// Note [Rows by multiplication]: the row of item i, i / len, is computed for every item, and a
// 64-bit division (dozens of instructions on the GPU) made short-row scans bound by
// instructions rather than memory. While every index fits 32 bits, the quotient comes from a
// multiply-high by a magic number instead (the round-up method for unsigned division by an
// invariant: with 2^(l-1) < len <= 2^l and m = floor(2^32 (2^l - len) / len) + 1,
// t = mulhi(m, i) and i / len = (t + (i - t) / 2) >> (l - 1), exact for every 32-bit i).
struct RowOf {
  int64_t len;
  uint32_t magic = 0;
  int shift = 0;        // l - 1
  bool narrow = false;  // every index below 2^32 and len >= 2: the multiply applies

  RowOf(int64_t len_, int64_t n) : len(len_) {
    if (len < 2 || n > (int64_t{1} << 32)) return;
    int l = 0;
    while ((int64_t{1} << l) < len) ++l;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << l) - len)) / len + 1);
    shift = l - 1;
    narrow = true;
  }

  __host__ __device__ int64_t operator()(int64_t i) const {
    if (!narrow) return i / len;
    uint32_t x = static_cast<uint32_t>(i);
#ifdef __CUDA_ARCH__
    uint32_t t = __umulhi(x, magic);
#else
    uint32_t t = static_cast<uint32_t>((static_cast<uint64_t>(x) * magic) >> 32);
#endif
    return static_cast<int64_t>((t + ((x - t) >> 1)) >> shift);
  }
};

template <template <typename> class Scan, typename A>
struct Combine {
  __host__ __device__ A operator()(A a, A b) const { return Scan<A>::combine(a, b); }
};

template <typename A>
struct Best {
  A value;
  int64_t at;
};

template <typename T, typename A>
struct LoadBest {
  const T* in;
  RowOf row;
  __host__ __device__ Best<A> operator()(int64_t i) const {
    return Best<A>{convert<A>(in[i]), i - row(i) * row.len};
  }
};

template <bool kMax, typename A>
struct CombineBest {
  __host__ __device__ Best<A> operator()(const Best<A>& a, const Best<A>& b) const {
    return ops::takes_over<kMax>(a.value, b.value) ? b : a;
  }
};

template <typename T, typename A>
struct SplitBest {
  __host__ __device__ thrust::tuple<T, int64_t> operator()(const Best<A>& b) const {
    return thrust::make_tuple(convert<T>(b.value), b.at);
  }
};

auto row_keys(int64_t len, int64_t n) {
  return thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), RowOf(len, n));
}

template <typename T, template <typename> class Scan>
cudaError_t scan_typed(const T* in, T* out, int64_t n, int64_t len, void* temp, size_t* bytes,
                       cudaStream_t stream) {
  using A = sum_acc_t<T>;
  auto values = thrust::make_transform_iterator(in, ConvertTo<A>{});
  auto written = thrust::make_transform_output_iterator(out, ConvertTo<T>{});
  return cub::DeviceScan::InclusiveScanByKey(temp, *bytes, row_keys(len, n), values, written,
                                             Combine<Scan, A>{}, n, ::cuda::std::equal_to<>{},
                                             stream);
}

template <bool kMax, typename T>
cudaError_t extreme_typed(const T* in, T* values, int64_t* indices, int64_t n, int64_t len,
                          void* temp, size_t* bytes, cudaStream_t stream) {
  using A = cmp_acc_t<T>;
  auto items = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0),
                                               LoadBest<T, A>{in, RowOf(len, n)});
  auto written = thrust::make_transform_output_iterator(
      thrust::make_zip_iterator(thrust::make_tuple(values, indices)), SplitBest<T, A>{});
  return cub::DeviceScan::InclusiveScanByKey(temp, *bytes, row_keys(len, n), items, written,
                                             CombineBest<kMax, A>{}, n, ::cuda::std::equal_to<>{},
                                             stream);
}

// Note [Warp row scans]: rows of up to kWarpScanMaxLen items are scanned one row per warp
// instead of by CUB's scan by key (Note [CUB row scans]), which reads the row keys, runs a
// look-back across tiles and needs scratch from the pool: a float32 cumsum of 262144 rows of
// 1024 reached 65% of copy bandwidth that way on an H100. Here each lane loads kItems
// consecutive items (whole 16-byte vectors when the rows are aligned to them), scans them
// serially in the accumulator, the warp scans the 32 lane totals with shuffles, and the
// running total of the row so far (the carry) goes on to the next 32 * kItems items. Lanes past
// the end of a row only ever see lower lanes' values, so no identity element is needed. One
// launch, no scratch; the sums are grouped differently from CUB's (a reordering of the same
// additions, as any parallel scan is).
constexpr int kWarpScanThreads = 256;
constexpr int kWarpScanItems = 16;  // items a lane holds per step

template <typename A>
__device__ __forceinline__ A shuffle_up(A v, int delta) {
  return __shfl_up_sync(0xffffffffu, v, delta);
}
template <typename A>
__device__ __forceinline__ A shuffle_from(A v, int lane) {
  return __shfl_sync(0xffffffffu, v, lane);
}

// V: items per vector load (1: item by item, for rows not aligned to 16 bytes).
template <typename T, typename A, template <typename> class Scan, int V>
__global__ void __launch_bounds__(kWarpScanThreads)
    warp_row_scan_kernel(const T* in, T* out, int64_t rows, int64_t len) {
  constexpr int kLoads = kWarpScanItems / V;  // vectors a lane holds per step
  const int lane = threadIdx.x & 31;
  const int64_t first = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t r = first; r < rows; r += warps) {
    const T* src = in + r * len;
    T* dst = out + r * len;
    A carry{};
    bool has_carry = false;
    for (int64_t base = 0; base < len; base += 32 * kWarpScanItems) {
      // Lane-major vectors: load j of lane l is vector (j * 32 + l), so each warp load is
      // contiguous; the items of one lane are then kLoads runs of V, scanned in order of j.
      A x[kWarpScanItems];
      bool valid[kWarpScanItems];
#pragma unroll
      for (int j = 0; j < kLoads; ++j) {
        const int64_t at = base + (static_cast<int64_t>(j) * 32 + lane) * V;
        if (at + V <= len) {
          Vector<T, V> v = *reinterpret_cast<const Vector<T, V>*>(src + at);
#pragma unroll
          for (int k = 0; k < V; ++k) {
            x[j * V + k] = convert<A>(v.v[k]);
            valid[j * V + k] = true;
          }
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k) {
            valid[j * V + k] = at + k < len;
            x[j * V + k] = valid[j * V + k] ? convert<A>(src[at + k]) : A{};
          }
        }
      }
      // Per load j, the warp scans its 32 runs; the carry chains the loads and the steps.
#pragma unroll
      for (int j = 0; j < kLoads; ++j) {
#pragma unroll
        for (int k = 1; k < V; ++k)
          if (valid[j * V + k]) x[j * V + k] = Scan<A>::combine(x[j * V + k - 1], x[j * V + k]);
        A total = x[j * V];
#pragma unroll
        for (int k = 1; k < V; ++k)
          if (valid[j * V + k]) total = x[j * V + k];
        A inclusive = total;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
          A up = shuffle_up(inclusive, d);
          if (lane >= d) inclusive = Scan<A>::combine(up, inclusive);
        }
        A before = shuffle_up(inclusive, 1);  // the lanes below this one, when lane > 0
        A last = shuffle_from(inclusive, 31);
        bool has_prefix = has_carry || lane > 0;
        A prefix = lane == 0 ? carry : (has_carry ? Scan<A>::combine(carry, before) : before);
        if (has_prefix) {
#pragma unroll
          for (int k = 0; k < V; ++k) x[j * V + k] = Scan<A>::combine(prefix, x[j * V + k]);
        }
        carry = has_carry ? Scan<A>::combine(carry, last) : last;
        has_carry = true;
      }
#pragma unroll
      for (int j = 0; j < kLoads; ++j) {
        const int64_t at = base + (static_cast<int64_t>(j) * 32 + lane) * V;
        if (at + V <= len) {
          Vector<T, V> v;
#pragma unroll
          for (int k = 0; k < V; ++k) v.v[k] = convert<T>(x[j * V + k]);
          *reinterpret_cast<Vector<T, V>*>(dst + at) = v;
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (valid[j * V + k]) dst[at + k] = convert<T>(x[j * V + k]);
        }
      }
    }
  }
}

template <typename T, template <typename> class Scan>
void warp_scan_typed(const T* in, T* out, int64_t n, int64_t len, cudaStream_t stream) {
  using A = sum_acc_t<T>;
  constexpr int V = 16 / sizeof(T) < kWarpScanItems ? 16 / sizeof(T) : kWarpScanItems;
  const int64_t rows = n / len;
  const int64_t warps_per_block = kWarpScanThreads / 32;
  int64_t blocks = (rows + warps_per_block - 1) / warps_per_block;
  blocks = blocks < 65536 ? blocks : 65536;
  bool vector = len % V == 0 && reinterpret_cast<uintptr_t>(in) % 16 == 0 &&
                reinterpret_cast<uintptr_t>(out) % 16 == 0;
  if (vector)
    warp_row_scan_kernel<T, A, Scan, V>
        <<<static_cast<int>(blocks), kWarpScanThreads, 0, stream>>>(in, out, rows, len);
  else
    warp_row_scan_kernel<T, A, Scan, 1>
        <<<static_cast<int>(blocks), kWarpScanThreads, 0, stream>>>(in, out, rows, len);
}

}  // namespace

bool warp_scan_fits(int64_t len) { return len >= 1 && len <= kWarpScanMaxLen; }

namespace {

template <template <typename> class Scan>
struct ScanTag {};

// run(T{}, ScanTag<Scan>{}) for the dtype code and scan op; cudaErrorInvalidValue where there is
// no such scan (bool, the log-sum-exp of integers).
template <typename Run>
cudaError_t visit_scan(int op, int dtype, const Run& run) {
  cudaError_t err = cudaErrorInvalidValue;
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      switch (static_cast<ops::ScanOp>(op)) {
        case ops::ScanOp::Sum:
          err = run(tag, ScanTag<ops::SumScan>{});
          break;
        case ops::ScanOp::Prod:
          err = run(tag, ScanTag<ops::ProdScan>{});
          break;
        case ops::ScanOp::LogSumExp:
          if constexpr (is_half_v<T> || std::is_floating_point_v<T>)
            err = run(tag, ScanTag<ops::LogAddExpScan>{});
          break;
      }
    }
  });
  return err;
}

template <typename T, template <typename> class Scan>
cudaError_t warp_scan_with(ScanTag<Scan>, const void* in, void* out, int64_t n, int64_t len,
                           cudaStream_t s) {
  warp_scan_typed<T, Scan>(static_cast<const T*>(in), static_cast<T*>(out), n, len, s);
  return cudaSuccess;
}

template <typename T, template <typename> class Scan>
cudaError_t scan_with(ScanTag<Scan>, const void* in, void* out, int64_t n, int64_t len, void* temp,
                      size_t* temp_bytes, cudaStream_t s) {
  return scan_typed<T, Scan>(static_cast<const T*>(in), static_cast<T*>(out), n, len, temp,
                             temp_bytes, s);
}

}  // namespace

int launch_warp_scan_rows(int op, int dtype, const void* in, void* out, int64_t n, int64_t len,
                          void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  return static_cast<int>(visit_scan(op, dtype, [&](auto t, auto scan) {
    return warp_scan_with<decltype(t)>(scan, in, out, n, len, s);
  }));
}

int launch_scan_rows(int op, int dtype, const void* in, void* out, int64_t n, int64_t len,
                     void* temp, size_t* temp_bytes, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  return static_cast<int>(visit_scan(op, dtype, [&](auto t, auto scan) {
    return scan_with<decltype(t)>(scan, in, out, n, len, temp, temp_bytes, s);
  }));
}

int launch_scan_extreme_rows(bool is_max, int dtype, const void* in, void* values, int64_t* indices,
                             int64_t n, int64_t len, void* temp, size_t* temp_bytes, void* stream) {
  cudaError_t err = cudaErrorInvalidValue;
  auto s = static_cast<cudaStream_t>(stream);
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(values);
    err = is_max ? extreme_typed<true>(src, dst, indices, n, len, temp, temp_bytes, s)
                 : extreme_typed<false>(src, dst, indices, n, len, temp, temp_bytes, s);
  });
  return static_cast<int>(err);
}

}  // namespace genesis::kernels

// One thread per value, a binary search over its sorted row in the order of Note [Sort keys].
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/search.cuh"
#include "kernels/sort_keys.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;

template <typename U, typename Out>
__global__ void search_kernel(const U* sorted, const U* values, Out* out, int64_t rows_sorted,
                              int64_t n, int64_t total, int64_t m, KeyFormat<U> format,
                              bool right) {
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  bool is_float = format.kind == vocab::KeyKind::Float;
  constexpr U kNanKey = static_cast<U>(~U(0));
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += stride) {
    const U* row = sorted + (rows_sorted == 1 ? 0 : (i / m) * n);
    U key = key_of(values[i], format);
    bool value_nan = is_float && key == kNanKey;
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      U k = key_of(row[mid], format);
      // PyTorch's comparisons (Note [Searching past NaN]): a NaN on either side moves right.
      if (value_nan || (is_float && k == kNanKey) || (right ? k <= key : k < key))
        lo = mid + 1;
      else
        hi = mid;
    }
    out[i] = static_cast<Out>(lo);
  }
}

}  // namespace

void launch_search_sorted(int dtype, const void* sorted, const void* values, void* out,
                          bool out_int32, int64_t rows_sorted, int64_t n, int64_t total, int64_t m,
                          bool right, void* stream) {
  int64_t blocks = (total + kThreads - 1) / kThreads;
  int grid = static_cast<int>(blocks < 65536 ? blocks : 65536);
  auto s = static_cast<cudaStream_t>(stream);
  with_key_format(dtype, [&](auto format) {
    using U = decltype(format.inf_bits);
    auto* sv = static_cast<const U*>(sorted);
    auto* vv = static_cast<const U*>(values);
    if (out_int32)
      search_kernel<<<grid, kThreads, 0, s>>>(sv, vv, static_cast<int32_t*>(out), rows_sorted, n,
                                              total, m, format, right);
    else
      search_kernel<<<grid, kThreads, 0, s>>>(sv, vv, static_cast<int64_t*>(out), rows_sorted, n,
                                              total, m, format, right);
    return 0;
  });
}

}  // namespace genesis::kernels

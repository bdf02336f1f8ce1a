// The k first items of a long row in sorted order without sorting the row (Note [Radix select]).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <cub/cub.cuh>

#include "kernels/sort_keys.cuh"
#include "kernels/topk.cuh"

namespace genesis::kernels {

// Note [Radix select]
// topk of one long row (sort order of Note [Sort keys], descending for the largest) needs only
// the k first items. Each item gets a 32-bit selection key `sel` whose descending order is the
// wanted order (the sort key, bit-flipped for the smallest, shifted to the top for narrower
// keys). Passes of 8 bits from the top find the k-th largest sel, T, as a radix sort would, but
// each pass only counts a histogram of the items that still match the prefix found so far, and
// one thread picks the digit holding the k-th item. Then every item with sel > T is taken and,
// of the items equal to T, the first ones by position: their rank among the ties is a scan of
// per-chunk counts. When every item equal to T is wanted (the last histogram says how many
// there are; usual for data without many repeats), the ranks are skipped and the tie counting
// pass returns at once. The k winners become 64-bit keys (~sel above, position below) and one
// small radix sort puts them in the order of a stable sort, so the result equals the first k
// items of sort() exactly, whatever order the atomics collected them in. Reads: one per key
// byte, plus one or two; a sort of the whole row reads and writes it once per key byte, with
// positions. The histogram passes are bound by instructions, not memory: a warp counts its
// items with shared-memory atomics, one per warp when they share a digit (count_digits).

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 16;  // items per thread in the chunked passes
constexpr int kChunk = kThreads * kItems;

struct SelectState {
  uint32_t prefix;    // the digits of T found so far
  uint32_t mask;      // which bits of prefix are found
  uint32_t k_left;    // how many of the items matching prefix are still to take
  uint32_t above;     // how many items have sel > the final T
  uint32_t next_gt;   // the slot counter of the collect pass
  uint32_t all_ties;  // every item equal to the final T is taken (so ties need no ranks)
  uint32_t hist[256];
};

template <typename U>
__device__ __forceinline__ uint32_t selection_of(U bits, KeyFormat<U> format, bool largest) {
  U key = key_of(bits, format);
  if (!largest) key = static_cast<U>(~key);
  return static_cast<uint32_t>(key) << (32 - 8 * sizeof(U));
}

template <typename U>
__device__ __forceinline__ uint32_t selection_key(const U* row, int64_t i, KeyFormat<U> format,
                                                  bool largest) {
  return selection_of(row[i], format, largest);
}

// Note [Vector loads in radix select]: the passes read the row 16 bytes at a time (8 float16,
// 4 float32 items), which took the 2^24-item float16 passes from 41 + 29 (histograms), 19
// (ties) and 31-37 us (collect) to 23-24 + 20-21, 13 and 22-24 us (H200, a probe of these
// kernels). Items before the first 16-byte boundary and after the last whole vector, and
// chunks of unaligned rows, are read one at a time.
template <typename U>
constexpr int kVec = 16 / static_cast<int>(sizeof(U));

// The selection keys of the kVec items of one aligned 16-byte vector.
template <typename U>
__device__ __forceinline__ void vector_keys(const U* at, KeyFormat<U> format, bool largest,
                                            uint32_t (&sel)[kVec<U>]) {
  uint4 w = *reinterpret_cast<const uint4*>(at);
  U items[kVec<U>];
  memcpy(items, &w, sizeof(w));
#pragma unroll
  for (int e = 0; e < kVec<U>; ++e) sel[e] = selection_of(items[e], format, largest);
}

// A row's items as [0, head) one at a time, then `vectors` aligned vectors, then the rest.
struct RowSplit {
  int64_t head, vectors;
};

// One warp step of the histogram: each lane's vector of kVec digits (256: none). A warp whose
// digits are all one (sorted or constant rows, the top byte of many floats, and in later passes
// "none" almost everywhere) adds them with one atomic; otherwise each lane adds its runs of
// equal digits, one atomic per run, which the shared-memory atomics handle well.
template <int V>
__device__ __forceinline__ void count_digits(uint32_t* hist, const uint32_t (&digit)[V], int lane) {
  bool same = true;
#pragma unroll
  for (int e = 1; e < V; ++e) same = same && digit[e] == digit[0];
  uint32_t first = __shfl_sync(0xffffffffu, digit[0], 0);
  if (__all_sync(0xffffffffu, same && digit[0] == first)) {
    if (lane == 0 && first < 256) atomicAdd(&hist[first], 32u * V);
    return;
  }
  uint32_t run_digit = digit[0], run = 0;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    if (digit[e] != run_digit) {
      if (run_digit < 256) atomicAdd(&hist[run_digit], run);
      run_digit = digit[e];
      run = 0;
    }
    ++run;
  }
  if (run_digit < 256) atomicAdd(&hist[run_digit], run);
}

// Each warp walks steps of 32 vectors (a grid of a few blocks per SM, so the per-block
// histograms are few to add up); block 0 also counts the items outside the vectors.
template <typename U>
__global__ void __launch_bounds__(kThreads)
    histogram_kernel(const U* row, int64_t n, RowSplit split, KeyFormat<U> format, bool largest,
                     int shift, SelectState* state) {
  constexpr int V = kVec<U>;
  __shared__ uint32_t hist[256];
  for (int d = threadIdx.x; d < 256; d += blockDim.x) hist[d] = 0;
  __syncthreads();
  const uint32_t prefix = state->prefix, mask = state->mask;
  const int lane = threadIdx.x & 31;
  const U* vectors = row + split.head;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t q0 = blockIdx.x * static_cast<int64_t>(kThreads) + (threadIdx.x & ~31);
       q0 < split.vectors; q0 += step) {  // warp-uniform: every lane takes each step
    const int64_t q = q0 + lane;
    uint32_t digit[V];
    if (q < split.vectors) {
      vector_keys(vectors + q * V, format, largest, digit);
#pragma unroll
      for (int e = 0; e < V; ++e)
        digit[e] = (digit[e] & mask) == prefix ? (digit[e] >> shift) & 255u : 256u;
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e) digit[e] = 256;
    }
    count_digits(hist, digit, lane);
  }
  if (blockIdx.x == 0) {
    const int64_t tail = split.head + split.vectors * V;
    const int64_t loose = split.head + (n - tail);  // fewer than 2 * V
    for (int64_t j = threadIdx.x; j < loose; j += blockDim.x) {
      int64_t i = j < split.head ? j : tail + (j - split.head);
      uint32_t sel = selection_key(row, i, format, largest);
      if ((sel & mask) == prefix) atomicAdd(&hist[(sel >> shift) & 255u], 1u);
    }
  }
  __syncthreads();
  for (int d = threadIdx.x; d < 256; d += blockDim.x)
    if (hist[d] != 0) atomicAdd(&state->hist[d], hist[d]);
}

// One thread: the digit (from the top) whose bucket holds the k_left-th item; clears the
// histogram for the next pass.
__global__ void pick_digit_kernel(SelectState* state, int shift) {
  uint32_t before = 0, k = state->k_left;
  int digit = 255;
  for (; digit > 0; --digit) {
    uint32_t c = state->hist[digit];
    if (before + c >= k) break;
    before += c;
  }
  state->prefix |= static_cast<uint32_t>(digit) << shift;
  state->mask |= 255u << shift;
  state->k_left = k - before;
  state->above += before;
  state->all_ties = state->hist[digit] == k - before;  // meaningful after the last pass
  for (int d = 0; d < 256; ++d) state->hist[d] = 0;
}

// Whether the chunk at `base` lies inside the row and starts on a 16-byte boundary (so every
// thread's items are whole vectors: kChunk and kItems are multiples of every kVec).
template <typename U>
__device__ __forceinline__ bool whole_aligned_chunk(const U* row, int64_t n, int64_t base) {
  return base + kChunk <= n && (reinterpret_cast<uintptr_t>(row + base) & 15) == 0;
}

template <typename U>
__global__ void count_ties_kernel(const U* row, int64_t n, KeyFormat<U> format, bool largest,
                                  const SelectState* state, uint32_t* chunk_ties) {
  using Reduce = cub::BlockReduce<uint32_t, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  if (state->all_ties) {  // no ranks needed (collect_kernel)
    if (threadIdx.x == 0) chunk_ties[blockIdx.x] = 0;
    return;
  }
  uint32_t t = state->prefix, count = 0;
  int64_t base = blockIdx.x * static_cast<int64_t>(kChunk);
  if (whole_aligned_chunk(row, n, base)) {
    constexpr int V = kVec<U>;
#pragma unroll
    for (int j = 0; j < kItems / V; ++j) {
      uint32_t sel[V];
      vector_keys(row + base + (j * kThreads + threadIdx.x) * V, format, largest, sel);
#pragma unroll
      for (int e = 0; e < V; ++e) count += sel[e] == t;
    }
  } else {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      int64_t i = base + j * kThreads + threadIdx.x;
      if (i < n && selection_key(row, i, format, largest) == t) ++count;
    }
  }
  uint32_t total = Reduce(temp).Sum(count);
  if (threadIdx.x == 0) chunk_ties[blockIdx.x] = total;
}

template <typename U>
__global__ void collect_kernel(const U* row, int64_t n, KeyFormat<U> format, bool largest,
                               SelectState* state, const uint32_t* chunk_offsets,
                               uint64_t* winners) {
  using Scan = cub::BlockScan<uint32_t, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  uint32_t t = state->prefix, ties_wanted = state->k_left, above = state->above;
  // Thread `threadIdx.x` owns items base + threadIdx.x * kItems + j: its ties come in order.
  int64_t base = blockIdx.x * static_cast<int64_t>(kChunk) + threadIdx.x * kItems;
  uint32_t sel[kItems];
  uint32_t ties = 0;
  if (whole_aligned_chunk(row, n, blockIdx.x * static_cast<int64_t>(kChunk))) {
    constexpr int V = kVec<U>;
#pragma unroll
    for (int v = 0; v < kItems / V; ++v) {
      uint32_t part[V];
      vector_keys(row + base + v * V, format, largest, part);
#pragma unroll
      for (int e = 0; e < V; ++e) sel[v * V + e] = part[e];
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) ties += sel[j] == t;
  } else {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      int64_t i = base + j;
      sel[j] = i < n ? selection_key(row, i, format, largest) : 0u;
      if (i < n && sel[j] == t) ++ties;
    }
  }
  bool all_ties = state->all_ties;  // the same in every thread
  uint32_t rank = 0;
  if (!all_ties) {
    Scan(temp).ExclusiveSum(ties, rank);
    rank += chunk_offsets[blockIdx.x];
  }
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    int64_t i = base + j;
    if (i >= n) break;
    uint32_t slot;
    if (sel[j] > t || (all_ties && sel[j] == t)) {
      slot = atomicAdd(&state->next_gt, 1u);
    } else if (sel[j] == t) {
      if (rank >= ties_wanted) continue;
      slot = above + rank++;
    } else {
      continue;
    }
    winners[slot] = (static_cast<uint64_t>(~sel[j]) << 32) | static_cast<uint64_t>(i);
  }
}

__global__ void positions_kernel(const uint64_t* sorted, int64_t k, int64_t* positions) {
  int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (j < k) positions[j] = static_cast<int64_t>(sorted[j] & 0xffffffffu);
}

int blocks_for(int64_t n, int64_t per_block) {
  return static_cast<int>((n + per_block - 1) / per_block);
}

size_t align_up(size_t bytes) { return (bytes + 255) & ~size_t(255); }

template <typename U>
int select_top(const U* row, int64_t n, int64_t k, KeyFormat<U> format, bool largest,
               int64_t* positions, void* scratch, size_t* scratch_bytes, cudaStream_t stream) {
  int chunks = blocks_for(n, kChunk);
  // Scratch layout: state | chunk ties | chunk offsets | winners | sorted winners | CUB temp.
  size_t scan_bytes = 0, sort_bytes = 0;
  cudaError_t err =
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<uint32_t*>(nullptr),
                                    static_cast<uint32_t*>(nullptr), chunks, stream);
  if (err != cudaSuccess) return err;
  err = cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, static_cast<uint64_t*>(nullptr),
                                       static_cast<uint64_t*>(nullptr), k, 0, 64, stream);
  if (err != cudaSuccess) return err;
  size_t off_ties = align_up(sizeof(SelectState));
  size_t off_offsets = off_ties + align_up(chunks * sizeof(uint32_t));
  size_t off_winners = off_offsets + align_up(chunks * sizeof(uint32_t));
  size_t off_sorted = off_winners + align_up(k * sizeof(uint64_t));
  size_t off_temp = off_sorted + align_up(k * sizeof(uint64_t));
  size_t total = off_temp + align_up(scan_bytes > sort_bytes ? scan_bytes : sort_bytes);
  if (scratch == nullptr) {
    *scratch_bytes = total;
    return cudaSuccess;
  }
  char* base = static_cast<char*>(scratch);
  auto* state = reinterpret_cast<SelectState*>(base);
  auto* chunk_ties = reinterpret_cast<uint32_t*>(base + off_ties);
  auto* chunk_offsets = reinterpret_cast<uint32_t*>(base + off_offsets);
  auto* winners = reinterpret_cast<uint64_t*>(base + off_winners);
  auto* sorted = reinterpret_cast<uint64_t*>(base + off_sorted);
  void* temp = base + off_temp;

  SelectState init{};
  init.k_left = static_cast<uint32_t>(k);
  err = cudaMemcpyAsync(state, &init, sizeof(init), cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess) return err;
  // A few resident blocks per SM walk the row (histogram_kernel).
  int device = 0, sms = 0;
  err = cudaGetDevice(&device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return err;
  RowSplit split;
  const int64_t misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(row) & 15);
  split.head = misaligned == 0 ? 0 : (16 - misaligned) / static_cast<int64_t>(sizeof(U));
  if (split.head > n) split.head = n;
  split.vectors = (n - split.head) / kVec<U>;
  int grid = blocks_for(split.vectors, kThreads);
  if (grid > 16 * sms) grid = 16 * sms;
  if (grid < 1) grid = 1;
  for (int pass = 0; pass < static_cast<int>(sizeof(U)); ++pass) {
    int shift = 24 - 8 * pass;
    histogram_kernel<U>
        <<<grid, kThreads, 0, stream>>>(row, n, split, format, largest, shift, state);
    pick_digit_kernel<<<1, 1, 0, stream>>>(state, shift);
  }
  count_ties_kernel<U><<<chunks, kThreads, 0, stream>>>(row, n, format, largest, state, chunk_ties);
  size_t temp_bytes = total - off_temp;
  err = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, chunk_ties, chunk_offsets, chunks, stream);
  if (err != cudaSuccess) return err;
  collect_kernel<U>
      <<<chunks, kThreads, 0, stream>>>(row, n, format, largest, state, chunk_offsets, winners);
  temp_bytes = total - off_temp;
  err = cub::DeviceRadixSort::SortKeys(temp, temp_bytes, winners, sorted, k, 0, 64, stream);
  if (err != cudaSuccess) return err;
  positions_kernel<<<blocks_for(k, kThreads), kThreads, 0, stream>>>(sorted, k, positions);
  return cudaGetLastError();
}

}  // namespace

bool select_top_supported(int dtype) {
  return with_key_format(dtype, [](auto format) { return sizeof(format.inf_bits) <= 4; });
}

int select_top_row(int dtype, const void* row, int64_t n, int64_t k, bool largest,
                   int64_t* positions, void* scratch, size_t* scratch_bytes, void* stream) {
  return with_key_format(dtype, [&](auto format) -> int {
    using U = decltype(format.inf_bits);
    if constexpr (sizeof(U) > 4) {
      return cudaErrorInvalidValue;
    } else {
      return select_top(static_cast<const U*>(row), n, k, format, largest, positions, scratch,
                        scratch_bytes, static_cast<cudaStream_t>(stream));
    }
  });
}

}  // namespace genesis::kernels

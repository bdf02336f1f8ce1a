// Note [CUDA row sort]: rows are sorted by CUB's radix sort on the keys of Note [Sort keys]
// (descending sorts flip the key bits, so every sort is CUB's stable ascending one), carrying
// int64 positions as the values.
// - One row: cub::DeviceRadixSort on the keys.
// - Several rows with keys of at most 32 bits: one radix sort of 64-bit keys (row << 32 | key),
//   limited to the bits that can be non-zero. The sort is stable, so it is one stable sort per
//   row in a single call, efficient for any mix of row counts and lengths.
// - 64-bit keys in several rows: cub::DeviceSegmentedSort for rows shorter than
//   kLongRow, else one radix sort per row (a segmented sort gives a long row a single block).
// Note [Values from keys]: sort() also returns the sorted values. Reading them back through the
// positions is a random gather of the whole input; instead they are decoded from the sorted keys
// in one sequential pass, except the keys that stand for several values (a float's zero, for
// -0.0 and +0.0, and NaN, for every payload), which are read through their positions.
// Scratch holds the keys, their sorted copy, the starting positions (32-bit ones also sorted
// there, Note [Narrow positions]) and CUB's own storage, laid out by the same function for the
// size query and the sort.
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <type_traits>

#include "kernels/dtype_traits.cuh"
#include "kernels/sort.cuh"
#include "kernels/sort_keys.cuh"

namespace genesis::kernels {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kLongRow = int64_t{1} << 16;

int grid_for(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65536 ? blocks : 65536);
}

size_t align_up(size_t n) { return (n + 255) & ~size_t{255}; }

// keys[i] = key(values[i]) ^ flip, with the row in the high half when `with_row` (U <= 32 bits).
template <typename U, typename K>
__global__ void make_keys(const U* values, K* keys, int64_t n, int64_t cols, KeyFormat<U> format,
                          U flip, bool with_row) {
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    U key = static_cast<U>(key_of(values[i], format) ^ flip);
    K k = static_cast<K>(key);
    if (with_row) k |= static_cast<K>(static_cast<uint64_t>(i / cols) << 32);
    keys[i] = k;
  }
}

// positions[i] = i % cols.
template <typename P>
__global__ void make_positions(P* positions, int64_t n, int64_t cols) {
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    positions[i] = static_cast<P>(cols == n ? i : i % cols);  // one row: no 64-bit division
}

// starts[r] = r * cols for r <= rows.
__global__ void make_starts(int64_t* starts, int64_t rows, int64_t cols) {
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r <= rows;
       r += stride)
    starts[r] = r * cols;
}

// The value bits of a key (the inverse of vocab::sort_key, Note [Sort keys]); a float's zero key
// and NaN key stand for several values and are not decoded here.
template <typename U>
__device__ __forceinline__ U bits_of_key(U key, const KeyFormat<U>& format) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  if (format.kind == vocab::KeyKind::Signed) return static_cast<U>(key ^ sign);
  if (format.kind == vocab::KeyKind::Float)
    return (key & sign) ? static_cast<U>(key & ~sign) : static_cast<U>(~key);
  return key;
}

// The end of a sort: indices[i] = positions[i] widened to int64 (when `indices` is given: the
// sort carried 32-bit positions, Note [Narrow positions]), and sorted_values[i] the value of
// sorted key i, read back from the keys (Note [Values from keys]; when `sorted_values` is given);
// a float zero or NaN is read from the input through its position, keeping a -0.0 and a NaN's
// payload.
template <typename U, typename K, typename P>
__global__ void finish_sort(const K* sorted, const P* positions, const U* values, int64_t* indices,
                            U* sorted_values, int64_t n, int64_t cols, KeyFormat<U> format,
                            U flip) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    int64_t position = static_cast<int64_t>(positions[i]);
    if (indices != nullptr) indices[i] = position;
    if (sorted_values == nullptr) continue;
    U key = static_cast<U>(static_cast<U>(sorted[i]) ^ flip);
    bool ambiguous = format.kind == vocab::KeyKind::Float && (key == sign || key == U(~U(0)));
    sorted_values[i] = ambiguous ? values[i - i % cols + position] : bits_of_key(key, format);
  }
}

// Note [One row in vectors]: one long row (rows == 1, the common sort of a whole 1-d tensor)
// takes the setup in groups of kVecBytes / sizeof(U) items per thread, read and written as
// 16-byte vectors, and the finish in pairs of items per thread (finish_row): items of 2 bytes
// read one at a time left these passes at about half the bandwidth of the sort passes around
// them. The group's tail and unaligned inputs take the item-at-a-time kernels above.
constexpr int kVecBytes = 16;

template <typename T, int V>
struct alignas(sizeof(T) * V < 16 ? sizeof(T) * V : 16) Pack {
  T v[V];
};

// keys[i] = key(values[i]) ^ flip and positions[i] = i, for one row.
template <typename U, int V>
__global__ void make_row_keys(const U* values, U* keys, uint32_t* positions, int64_t n,
                              KeyFormat<U> format, U flip) {
  int64_t groups = n / V;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t first = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  for (int64_t g = first; g < groups; g += stride) {
    Pack<U, V> in = reinterpret_cast<const Pack<U, V>*>(values)[g];
    Pack<U, V> out;
    Pack<uint32_t, V> at;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      out.v[j] = static_cast<U>(key_of(in.v[j], format) ^ flip);
      at.v[j] = static_cast<uint32_t>(g * V + j);
    }
    reinterpret_cast<Pack<U, V>*>(keys)[g] = out;
    reinterpret_cast<Pack<uint32_t, V>*>(positions)[g] = at;
  }
  for (int64_t i = groups * V + first; i < n; i += stride) {
    keys[i] = static_cast<U>(key_of(values[i], format) ^ flip);
    positions[i] = static_cast<uint32_t>(i);
  }
}

// finish_sort for one row: indices widened, values decoded (sorted_values may be null). Each
// thread takes pairs of items, neighbouring threads neighbouring pairs, so every load and store
// of a warp covers one contiguous span (the positions 8 bytes a thread, the indices 16): with
// V items per thread, the 64 bytes of indices a thread wrote left each 16-byte store of a warp
// spread over 2 KiB, and the pass ran at 1.6-2.4 TB/s.
template <typename U>
__global__ void finish_row(const U* sorted, const uint32_t* positions, const U* values,
                           int64_t* indices, U* sorted_values, int64_t n, KeyFormat<U> format,
                           U flip) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  bool is_float = format.kind == vocab::KeyKind::Float;
  auto decode = [&](U k, uint32_t position) {
    U key = static_cast<U>(k ^ flip);
    bool ambiguous = is_float && (key == sign || key == U(~U(0)));
    return ambiguous ? values[position] : bits_of_key(key, format);
  };
  int64_t pairs = n / 2;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t first = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  for (int64_t p = first; p < pairs; p += stride) {
    Pack<uint32_t, 2> at = reinterpret_cast<const Pack<uint32_t, 2>*>(positions)[p];
    Pack<int64_t, 2> wide;
    wide.v[0] = at.v[0];
    wide.v[1] = at.v[1];
    reinterpret_cast<Pack<int64_t, 2>*>(indices)[p] = wide;
    if (sorted_values == nullptr) continue;
    Pack<U, 2> keys = reinterpret_cast<const Pack<U, 2>*>(sorted)[p];
    Pack<U, 2> out;
    out.v[0] = decode(keys.v[0], at.v[0]);
    out.v[1] = decode(keys.v[1], at.v[1]);
    reinterpret_cast<Pack<U, 2>*>(sorted_values)[p] = out;
  }
  if (first == 0 && n % 2 != 0) {
    indices[n - 1] = positions[n - 1];
    if (sorted_values != nullptr) sorted_values[n - 1] = decode(sorted[n - 1], positions[n - 1]);
  }
}

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kVecBytes == 0; }

// Note [Short rows in shared memory]: rows of at most kBlockRow items with keys of at most 32
// bits are sorted one row per block by cub::BlockRadixSort, in shared memory: the row is read
// once and its positions and values written once, where a device-wide sort passes over all
// rows once per key byte. BlockRadixSort is stable in the blocked order, so the row is loaded
// blocked (item i of the row is item i % Items of thread i / Items); padding gets the largest
// key and comes after every item.
constexpr int kBlockThreads = 256;
constexpr int64_t kBlockRow = 2048;

template <typename U, int Items>
__global__ void __launch_bounds__(kBlockThreads)
    block_sort_rows(const U* values, int64_t* indices, U* sorted_values, int cols,
                    KeyFormat<U> format, U flip) {
  using Load = cub::BlockLoad<U, kBlockThreads, Items, cub::BLOCK_LOAD_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<U, kBlockThreads, Items, int>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
  } temp;
  const int64_t row = blockIdx.x;
  const U* in = values + row * cols;
  U keys[Items];
  int positions[Items];
  Load(temp.load).Load(in, keys, cols, U(0));
  __syncthreads();
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    int p = threadIdx.x * Items + j;
    positions[j] = p;
    keys[j] = p < cols ? static_cast<U>(key_of(keys[j], format) ^ flip) : static_cast<U>(~U(0));
  }
  Sort(temp.sort).SortBlockedToStriped(keys, positions);
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    int r = j * kBlockThreads + threadIdx.x;
    if (r >= cols) continue;
    indices[row * cols + r] = positions[j];
    if (sorted_values != nullptr) {
      U key = static_cast<U>(keys[j] ^ flip);
      bool ambiguous = format.kind == vocab::KeyKind::Float && (key == sign || key == U(~U(0)));
      sorted_values[row * cols + r] = ambiguous ? in[positions[j]] : bits_of_key(key, format);
    }
  }
}

template <typename U>
cudaError_t block_sort(const U* values, int64_t* indices, U* sorted_values, int64_t rows,
                       int64_t cols, KeyFormat<U> format, U flip, cudaStream_t stream) {
  int c = static_cast<int>(cols);
  unsigned grid = static_cast<unsigned>(rows);
  if (cols <= 256)
    block_sort_rows<U, 1>
        <<<grid, kBlockThreads, 0, stream>>>(values, indices, sorted_values, c, format, flip);
  else if (cols <= 512)
    block_sort_rows<U, 2>
        <<<grid, kBlockThreads, 0, stream>>>(values, indices, sorted_values, c, format, flip);
  else if (cols <= 1024)
    block_sort_rows<U, 4>
        <<<grid, kBlockThreads, 0, stream>>>(values, indices, sorted_values, c, format, flip);
  else
    block_sort_rows<U, 8>
        <<<grid, kBlockThreads, 0, stream>>>(values, indices, sorted_values, c, format, flip);
  return cudaGetLastError();
}

int bits_for(int64_t n) {  // bits needed to hold 0..n-1
  int bits = 0;
  while (bits < 63 && (int64_t{1} << bits) < n) ++bits;
  return bits;
}

// Note [Narrow positions]: CUB's radix sort moves every key and its position once per pass, so
// the positions' width is a large part of the traffic: a row shorter than 2^32 items carries
// 32-bit positions (8 bytes an item a pass for float32 keys instead of 12), widened to int64
// in the pass that also decodes the values. Longer rows carry int64 positions.
template <typename U, typename P>
cudaError_t sort_radix(const U* values, int64_t* indices, U* sorted_values, int64_t rows,
                       int64_t cols, KeyFormat<U> format, bool descending, void* scratch,
                       size_t* bytes, cudaStream_t stream) {
  int64_t n = rows * cols;
  U flip = descending ? static_cast<U>(~U(0)) : U(0);
  constexpr bool kNarrow = sizeof(U) <= 4;
  constexpr bool kWide = std::is_same_v<P, int64_t>;  // the sort writes `indices` itself
  bool packed = kNarrow && rows > 1;
  using Wide = uint64_t;
  size_t key_size = packed ? sizeof(Wide) : sizeof(U);
  // Layout: keys | sorted keys | positions | sorted positions | starts | CUB storage.
  size_t keys_at = 0, sorted_at = align_up(n * key_size), positions_at = 2 * sorted_at;
  size_t sorted_positions_at = positions_at + align_up(n * sizeof(P));
  size_t starts_at = sorted_positions_at + (kWide ? 0 : align_up(n * sizeof(P)));
  size_t cub_at = starts_at + align_up((rows + 1) * sizeof(int64_t));
  auto* base = static_cast<unsigned char*>(scratch);
  size_t cub_bytes = 0;
  bool segmented = !packed && rows > 1 && cols < kLongRow;
  auto* positions = reinterpret_cast<P*>(base + positions_at);
  P* sorted_positions =
      kWide ? reinterpret_cast<P*>(indices) : reinterpret_cast<P*>(base + sorted_positions_at);
  auto run = [&](void* cub_storage) -> cudaError_t {
    if (packed) {
      auto* keys = reinterpret_cast<Wide*>(base + keys_at);
      auto* sorted = reinterpret_cast<Wide*>(base + sorted_at);
      int end_bit = 32 + bits_for(rows);
      return cub::DeviceRadixSort::SortPairs(cub_storage, cub_bytes, keys, sorted, positions,
                                             sorted_positions, n, 0, end_bit, stream);
    }
    auto* keys = reinterpret_cast<U*>(base + keys_at);
    auto* sorted = reinterpret_cast<U*>(base + sorted_at);
    if constexpr (!kNarrow) {
      if (segmented) {
        auto* starts = reinterpret_cast<int64_t*>(base + starts_at);
        return cub::DeviceSegmentedSort::StableSortPairs(cub_storage, cub_bytes, keys, sorted,
                                                         positions, sorted_positions, n, rows,
                                                         starts, starts + 1, stream);
      }
    }
    // One row at a time (one row, or long rows of 64-bit keys).
    for (int64_t r = 0; r < (cub_storage ? rows : 1); ++r) {
      cudaError_t e = cub::DeviceRadixSort::SortPairs(
          cub_storage, cub_bytes, keys + r * cols, sorted + r * cols, positions + r * cols,
          sorted_positions + r * cols, cols, 0, static_cast<int>(sizeof(U) * 8), stream);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  };
  if (scratch == nullptr) {
    cudaError_t err = run(nullptr);
    *bytes = cub_at + align_up(cub_bytes);
    return err;
  }
  cub_bytes = *bytes - cub_at;
  constexpr int V = kVecBytes / sizeof(U);
  // Note [One row in vectors]: the scratch buffers are aligned; the input and outputs may not be.
  bool one_row = !kWide && rows == 1 && aligned(values) && aligned(indices) &&
                 (sorted_values == nullptr || aligned(sorted_values));
  if (one_row) {
    if constexpr (!kWide)
      make_row_keys<U, V><<<grid_for(n / V + 1), kThreads, 0, stream>>>(
          values, reinterpret_cast<U*>(base + keys_at), positions, n, format, flip);
  } else {
    if (packed)
      make_keys<<<grid_for(n), kThreads, 0, stream>>>(
          values, reinterpret_cast<Wide*>(base + keys_at), n, cols, format, flip, true);
    else
      make_keys<<<grid_for(n), kThreads, 0, stream>>>(values, reinterpret_cast<U*>(base + keys_at),
                                                      n, cols, format, flip, false);
    make_positions<<<grid_for(n), kThreads, 0, stream>>>(positions, n, cols);
  }
  if (segmented)
    make_starts<<<grid_for(rows + 1), kThreads, 0, stream>>>(
        reinterpret_cast<int64_t*>(base + starts_at), rows, cols);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  err = run(base + cub_at);
  if (err != cudaSuccess || (kWide && sorted_values == nullptr)) return err;
  int64_t* widened = kWide ? nullptr : indices;
  if constexpr (!kWide) {
    if (one_row) {
      finish_row<U><<<grid_for(n / 2 + 1), kThreads, 0, stream>>>(
          reinterpret_cast<const U*>(base + sorted_at), sorted_positions, values, indices,
          sorted_values, n, format, flip);
      return cudaGetLastError();
    }
  }
  if (packed)
    finish_sort<<<grid_for(n), kThreads, 0, stream>>>(
        reinterpret_cast<const Wide*>(base + sorted_at), sorted_positions, values, widened,
        sorted_values, n, cols, format, flip);
  else
    finish_sort<<<grid_for(n), kThreads, 0, stream>>>(reinterpret_cast<const U*>(base + sorted_at),
                                                      sorted_positions, values, widened,
                                                      sorted_values, n, cols, format, flip);
  return cudaGetLastError();
}

// The whole sort for one key type; a null scratch only measures.
template <typename U>
cudaError_t sort_typed(const U* values, int64_t* indices, U* sorted_values, int64_t rows,
                       int64_t cols, KeyFormat<U> format, bool descending, void* scratch,
                       size_t* bytes, cudaStream_t stream) {
  // Each key width compiles only the paths it can take (`if constexpr`): CUB's segmented sort
  // serves only 64-bit keys and the shared-memory sort only narrower ones, and every
  // instantiation costs build time.
  if constexpr (sizeof(U) <= 4) {
    if (cols <= kBlockRow && rows < (int64_t{1} << 31)) {
      if (scratch == nullptr) {  // Note [Short rows in shared memory]: a token scratch, unused
        *bytes = 256;
        return cudaSuccess;
      }
      U flip = descending ? static_cast<U>(~U(0)) : U(0);
      return block_sort(values, indices, sorted_values, rows, cols, format, flip, stream);
    }
  }
  if (cols < (int64_t{1} << 32))
    return sort_radix<U, uint32_t>(values, indices, sorted_values, rows, cols, format, descending,
                                   scratch, bytes, stream);
  return sort_radix<U, int64_t>(values, indices, sorted_values, rows, cols, format, descending,
                                scratch, bytes, stream);
}

// One thread per row walks its sorted items (cpu/sort.cpp's mode_rows, the same rules).
template <typename U>
__global__ void mode_kernel(const U* sorted, const int64_t* order, U* values_out,
                            int64_t* indices_out, int64_t rows, int64_t cols, KeyFormat<U> format) {
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  bool is_float = format.kind == vocab::KeyKind::Float;
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += stride) {
    const U* row = sorted + r * cols;
    const int64_t* pos = order + r * cols;
    int64_t best_start = 0, best_length = 0, best_position = 0;
    int64_t start = 0, last_position = pos[0];
    U prev = key_of(row[0], format);
    for (int64_t j = 1; j <= cols; ++j) {
      bool same = false;
      U cur = prev;
      if (j < cols) {
        cur = key_of(row[j], format);
        same = prev == cur && !(is_float && cur == static_cast<U>(~U(0)));
      }
      prev = cur;
      if (same) {
        if (pos[j] > last_position) last_position = pos[j];
        continue;
      }
      if (j - start > best_length) {
        best_length = j - start;
        best_start = start;
        best_position = last_position;
      }
      if (j < cols) {
        start = j;
        last_position = pos[j];
      }
    }
    values_out[r] = row[best_start];
    indices_out[r] = best_position;
  }
}

}  // namespace

int sort_rows(int dtype, const void* values, int64_t* indices, void* sorted_values, int64_t rows,
              int64_t cols, bool descending, void* scratch, size_t* scratch_bytes, void* stream) {
  return with_key_format(dtype, [&](auto format) {
    using U = decltype(format.inf_bits);
    return static_cast<int>(sort_typed<U>(
        static_cast<const U*>(values), indices, static_cast<U*>(sorted_values), rows, cols, format,
        descending, scratch, scratch_bytes, static_cast<cudaStream_t>(stream)));
  });
}

void launch_mode_rows(int dtype, const void* sorted, const int64_t* order, void* values_out,
                      int64_t* indices_out, int64_t rows, int64_t cols, void* stream) {
  with_key_format(dtype, [&](auto format) {
    using U = decltype(format.inf_bits);
    mode_kernel<<<grid_for(rows), 128, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const U*>(sorted), order, static_cast<U*>(values_out), indices_out, rows, cols,
        format);
    return 0;
  });
}

}  // namespace genesis::kernels

#include "cpu/sort.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "cpu/parallel.h"
#include "cpu/sort_keys.h"

namespace genesis::cpu {

namespace {

template <typename U>
U key_at(const unsigned char* row, int64_t j, const KeyFormat<U>& format) {
  U bits;
  std::memcpy(&bits, row + j * static_cast<int64_t>(sizeof(U)), sizeof(U));
  return key_of(bits, format);
}

// Note [Packed sort]: a stable sort of (key, position) pairs is an unstable sort of the pairs
// ordered by key, then position, and when the key has at most 32 bits and the row fewer than
// 2^32 items the pair packs into one uint64 whose integer order is that order. Short rows use
// std::sort on those integers; long ones an LSD radix sort on the key bits only (stable, so the
// positions stay in order without being sorted on), 8 bits a pass, skipping passes whose digit
// is the same in every item. Descending sorts invert the key, not the position, so equal items
// still keep their input order.
constexpr int64_t kRadixMinItems = 2048;

// A (key, position) pair packed into one integer (Note [Packed sort]): key at most 32 bits,
// position below 2^32.
template <typename U>
uint64_t packed_pair(U key, int64_t position) {
  return (uint64_t(key) << 32) | uint64_t(position);
}

// Rows at least this long sort each radix pass in parallel (Note [Parallel radix passes]).
constexpr size_t kParallelRadixItems = size_t{1} << 20;

// Note [Parallel radix passes]: a long row (one row of 2^24 items) would otherwise sort on one
// thread. Its items are cut into `tasks` fixed ranges; each pass, every task counts the digits
// of its range, the offsets run bucket by bucket and within a bucket task by task (so equal
// digits keep their order: the pass stays stable), and every task scatters its range. Rows
// sorted inside a parallel loop over rows run the tasks in turn (parallel_for nests serially).
template <typename Item, typename Key>
void radix_sort(std::vector<Item>& items, std::vector<Item>& spare, int low_bit, int key_bits,
                const Key& key) {
  size_t n = items.size();
  spare.resize(n);
  size_t tasks = 1;
#ifdef _OPENMP
  if (n >= kParallelRadixItems) tasks = static_cast<size_t>(std::max(1, omp_get_max_threads()));
#endif
  std::vector<std::array<size_t, 256>> counts(tasks);
  auto first = [&](size_t t) { return n / tasks * t + std::min(t, n % tasks); };
  for (int shift = low_bit; shift < low_bit + key_bits; shift += 8) {
    parallel_for(static_cast<int64_t>(tasks), 1, [&](int64_t b, int64_t e) {
      for (size_t t = static_cast<size_t>(b); t < static_cast<size_t>(e); ++t) {
        counts[t].fill(0);
        for (size_t i = first(t); i < first(t + 1); ++i)
          ++counts[t][(key(items[i]) >> shift) & 0xff];
      }
    });
    bool one_digit = false;  // the pass would change nothing
    size_t start = 0;
    for (size_t digit = 0; digit < 256; ++digit) {
      size_t total = 0;
      for (size_t t = 0; t < tasks; ++t) {
        size_t count = counts[t][digit];
        counts[t][digit] = start + total;
        total += count;
      }
      one_digit = one_digit || total == n;
      start += total;
    }
    if (one_digit) continue;
    parallel_for(static_cast<int64_t>(tasks), 1, [&](int64_t b, int64_t e) {
      for (size_t t = static_cast<size_t>(b); t < static_cast<size_t>(e); ++t)
        for (size_t i = first(t); i < first(t + 1); ++i)
          spare[counts[t][(key(items[i]) >> shift) & 0xff]++] = items[i];
    });
    items.swap(spare);
  }
}

struct SortScratch {
  std::vector<uint64_t> packed, spare;
};

template <typename U>
void sort_row(const unsigned char* row, int64_t cols, int64_t* out, const KeyFormat<U>& format,
              bool descending, SortScratch& scratch) {
  U flip = descending ? static_cast<U>(~U(0)) : U(0);
  if (sizeof(U) <= 4 && cols <= (int64_t{1} << 32)) {
    std::vector<uint64_t>& packed = scratch.packed;
    packed.resize(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) packed[j] = packed_pair(U(key_at(row, j, format) ^ flip), j);
    if (cols >= kRadixMinItems)
      radix_sort(packed, scratch.spare, 32, static_cast<int>(8 * sizeof(U)),
                 [](uint64_t v) { return v; });
    else
      std::sort(packed.begin(), packed.end());
    for (int64_t j = 0; j < cols; ++j) out[j] = static_cast<int64_t>(packed[j] & 0xffffffffu);
    return;
  }
  std::vector<std::pair<U, int64_t>> pairs(static_cast<size_t>(cols));
  for (int64_t j = 0; j < cols; ++j) pairs[j] = {U(key_at(row, j, format) ^ flip), j};
  if (cols >= kRadixMinItems) {
    std::vector<std::pair<U, int64_t>> spare;
    radix_sort(pairs, spare, 0, static_cast<int>(8 * sizeof(U)),
               [](const std::pair<U, int64_t>& p) { return static_cast<uint64_t>(p.first); });
  } else {
    std::sort(pairs.begin(), pairs.end());
  }
  for (int64_t j = 0; j < cols; ++j) out[j] = pairs[j].second;
}

// Note [Top k by selection]: the first k of a row's stable sort are its k smallest (key,
// position) pairs. A pass over the row's keys finds the k-th smallest key T (std::nth_element
// over a buffer of candidates, each kept only while below the k-th smallest kept so far, so a
// long row is mostly one comparison per item); one more pass over the row then takes
// every item with a key below T (fewer than k) and the first items with key T, in position
// order, up to k; a sort of those k pairs gives exactly the stable sort's prefix. A short row
// of narrow keys instead packs its pairs into integers (Note [Packed sort]) and runs
// std::nth_element on those: one pass over the row fewer, which is what counts there (topk(16)
// of rows of 1024: about 77 ms for the packed pairs, about 150 ms for the two passes).
// Rows up to this long select among packed pairs (Note [Packed sort]) instead.
constexpr int64_t kPackedSelectMaxItems = 4096;

template <typename U>
struct TopScratch {
  std::vector<uint64_t> packed;
  std::vector<U> keys;
  std::vector<std::pair<uint64_t, int64_t>> chosen;
};

template <typename U>
void top_row(const unsigned char* row, int64_t cols, int64_t k, int64_t* out,
             const KeyFormat<U>& format, bool descending, TopScratch<U>& scratch) {
  U flip = descending ? static_cast<U>(~U(0)) : U(0);
  auto key = [&](int64_t j) { return U(key_at(row, j, format) ^ flip); };
  if (sizeof(U) <= 4 && cols <= kPackedSelectMaxItems) {
    // A short row: select among packed (key, position) integers directly, one pass fewer.
    std::vector<uint64_t>& packed = scratch.packed;
    packed.resize(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) packed[j] = packed_pair(key(j), j);
    if (k < cols) std::nth_element(packed.begin(), packed.begin() + k, packed.end());
    std::sort(packed.begin(), packed.begin() + k);
    for (int64_t j = 0; j < k; ++j) out[j] = static_cast<int64_t>(packed[j] & 0xffffffffu);
    return;
  }
  // The k-th smallest key, streamed: candidates below the k-th smallest of those kept so far
  // go to a buffer, cut back to its k smallest whenever it fills (linear even on sorted rows).
  std::vector<U>& keys = scratch.keys;
  keys.clear();
  size_t limit = static_cast<size_t>(k) + std::max<size_t>(static_cast<size_t>(k), 4096);
  U bound = static_cast<U>(~U(0));
  for (int64_t j = 0; j < cols; ++j) {
    U v = key(j);
    if (v < bound || keys.size() < static_cast<size_t>(k)) {
      keys.push_back(v);
      if (keys.size() >= limit) {
        std::nth_element(keys.begin(), keys.begin() + (k - 1), keys.end());
        keys.resize(static_cast<size_t>(k));
        bound = keys[k - 1];
      }
    }
  }
  std::nth_element(keys.begin(), keys.begin() + (k - 1), keys.end());
  U kth = keys[k - 1];
  auto& chosen = scratch.chosen;
  chosen.clear();
  int64_t below = 0;
  for (int64_t j = 0; j < cols; ++j) {
    U v = key(j);
    if (v < kth) {
      chosen.emplace_back(v, j);
      ++below;
    } else if (v == kth && static_cast<int64_t>(chosen.size()) - below < k) {
      chosen.emplace_back(v, j);  // at most k of them: the first in position order
    }
  }
  // Every item below T, then the first (k - below) with key T: the sort puts the T ones last,
  // in position order, so the first k pairs are the answer.
  std::sort(chosen.begin(), chosen.end());
  for (int64_t j = 0; j < k; ++j) out[j] = chosen[j].second;
}

}  // namespace

void top_rows(const Tensor& values, int64_t k, bool descending, const Tensor& indices) {
  int64_t cols = values.ndim() == 0 ? 1 : values.sizes().back();
  GENESIS_CHECK(values.is_contiguous() && indices.is_contiguous() &&
                    indices.dtype() == ScalarType::Int64 && k >= 0 && k <= cols &&
                    indices.numel() == (cols == 0 ? 0 : values.numel() / cols) * k,
                "topk", "expected contiguous values and int64 indices of k per row");
  if (values.numel() == 0 || k == 0) return;
  int64_t rows = values.numel() / cols;
  const auto* base = static_cast<const unsigned char*>(values.data());
  auto* out = indices.mutable_data_as<int64_t>();
  int64_t row_bytes = cols * static_cast<int64_t>(itemsize(values.dtype()));
  with_key_format(values.dtype(), "topk", [&](auto format) {
    using U = decltype(format.inf_bits);
    int64_t row_cost = std::max<int64_t>(1, cols + k * log2_ceil(k));
    parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / row_cost), [&](int64_t b, int64_t e) {
      TopScratch<U> scratch;
      for (int64_t r = b; r < e; ++r)
        top_row(base + r * row_bytes, cols, k, out + r * k, format, descending, scratch);
    });
  });
}

void sort_rows(const Tensor& values, const Tensor& indices, bool descending) {
  GENESIS_CHECK(values.is_contiguous() && indices.is_contiguous() &&
                    indices.dtype() == ScalarType::Int64 && values.numel() == indices.numel(),
                "sort", "expected contiguous values and int64 indices of one size");
  if (values.numel() == 0) return;
  int64_t cols = values.ndim() == 0 ? 1 : values.sizes().back();
  int64_t rows = values.numel() / cols;
  const auto* base = static_cast<const unsigned char*>(values.data());
  auto* out = indices.mutable_data_as<int64_t>();
  int64_t row_bytes = cols * static_cast<int64_t>(itemsize(values.dtype()));
  with_key_format(values.dtype(), "sort", [&](auto format) {
    // A row costs about cols * log2(cols) element operations.
    int64_t row_cost = std::max<int64_t>(1, cols * log2_ceil(cols));
    parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / row_cost), [&](int64_t b, int64_t e) {
      SortScratch scratch;  // one per thread, reused by its rows
      for (int64_t r = b; r < e; ++r)
        sort_row(base + r * row_bytes, cols, out + r * cols, format, descending, scratch);
    });
  });
}

void mode_rows(const Tensor& sorted, const Tensor& order, const Tensor& values_out,
               const Tensor& indices_out) {
  GENESIS_CHECK(sorted.is_contiguous() && order.is_contiguous() && values_out.is_contiguous() &&
                    indices_out.is_contiguous() && sorted.numel() > 0,
                "mode", "expected contiguous, non-empty rows");
  int64_t cols = sorted.ndim() == 0 ? 1 : sorted.sizes().back();
  int64_t rows = sorted.numel() / cols;
  const auto* base = static_cast<const unsigned char*>(sorted.data());
  const int64_t* positions = order.data_as<int64_t>();
  auto* value_base = static_cast<unsigned char*>(values_out.mutable_data());
  int64_t* index_out = indices_out.mutable_data_as<int64_t>();
  size_t item = itemsize(sorted.dtype());
  with_key_format(sorted.dtype(), "mode", [&](auto format) {
    using U = decltype(format.inf_bits);
    bool is_float = format.kind == vocab::KeyKind::Float;
    parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / cols), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const unsigned char* row = base + r * cols * static_cast<int64_t>(item);
        const int64_t* pos = positions + r * cols;
        int64_t best_start = 0, best_length = 0, best_position = 0;
        int64_t start = 0, last_position = pos[0];
        for (int64_t j = 1; j <= cols; ++j) {
          bool same = false;
          if (j < cols) {
            U prev = key_at(row, j - 1, format), cur = key_at(row, j, format);
            same = prev == cur && !(is_float && cur == static_cast<U>(~U(0)));
          }
          if (same) {
            last_position = std::max(last_position, pos[j]);
            continue;
          }
          if (j - start > best_length) {  // strictly longer: ties keep the smaller value
            best_length = j - start;
            best_start = start;
            best_position = last_position;
          }
          if (j < cols) {
            start = j;
            last_position = pos[j];
          }
        }
        std::memcpy(value_base + r * static_cast<int64_t>(item), row + best_start * item, item);
        index_out[r] = best_position;
      }
    });
  });
}

}  // namespace genesis::cpu

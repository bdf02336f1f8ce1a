// Top k along rows on the CPU (cpu/topk.h): a running bound for small k, a selection otherwise.
#include "cpu/topk.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "cpu/parallel.h"
#include "cpu/sort_keys.h"

namespace genesis::cpu {

namespace {

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

// Note [Top k by a running bound]: when k is small next to the row, the row's k smallest
// (key, position) pairs are kept as packed integers (Note [Packed sort]; sorted for k up to
// kInsertMaxK, a max-heap above) as the row streams by, in blocks whose entries are first counted
// branch-free. An item enters only when its key is below the key of the largest kept pair
// (an equal key comes later in the row, so its pair is larger and stays out), which on a row in
// random order happens about k ln(cols / k) times: the row costs one load, one key and one
// comparison an item, where a selection writes every item and then partitions them. A row that
// keeps entering (sorted against the wanted order) gives up after a budget of entries and takes
// the selection instead (Note [Top k by selection]). A few long rows are cut into ranges, one per
// thread; the k smallest pairs of the row are among the k smallest of its ranges, so the
// ranges' k best are merged and selected once more. 2^24 float32 on two cores: topk(16) of rows
// of 1024 about 75 -> 41 ms (torch about 49 ms), topk(16) of one row about 70 -> 7 ms (NumPy's
// partition about 46 ms).
constexpr int64_t kBoundRowsPerK = 8;                 // rows of fewer than 8k items select instead
constexpr int64_t kSplitRowItems = int64_t{1} << 16;  // rows this long split over threads

// The key of Note [Sort keys] without branches, for one kind fixed at compile time, so the scan
// for entries below the bound compiles to vector compares.
template <vocab::KeyKind Kind, typename U>
inline U flat_key(U bits, U inf_bits) {
  constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  if constexpr (Kind == vocab::KeyKind::Unsigned) {
    return bits;
  } else if constexpr (Kind == vocab::KeyKind::Signed) {
    return static_cast<U>(bits ^ sign);
  } else {
    U magnitude = static_cast<U>(bits & ~sign);
    U negative = static_cast<U>(U(0) - static_cast<U>(bits >> (sizeof(U) * 8 - 1)));
    U key = static_cast<U>(bits ^ (negative | sign));
    key = magnitude == 0 ? sign : key;                          // -0.0 sorts as +0.0
    return magnitude > inf_bits ? static_cast<U>(~U(0)) : key;  // NaN: after everything
  }
}

// Items of one row as keys in the wanted order (flipped for a descending sort).
template <vocab::KeyKind Kind, typename U>
struct RowKeys {
  const unsigned char* row;  // may be unaligned for U: read through memcpy
  U inf_bits, flip;
  U operator()(int64_t j) const {
    U bits;
    std::memcpy(&bits, row + j * static_cast<int64_t>(sizeof(U)), sizeof(U));
    return static_cast<U>(flat_key<Kind>(bits, inf_bits) ^ flip);
  }
};

constexpr int64_t kScanBlock = 64;  // items checked at once for any entry

constexpr int64_t kInsertMaxK = 32;  // up to this k the kept pairs stay sorted, else a heap

// The k smallest packed pairs of items [begin, end) (at least k of them) into best[0, k), in no
// particular order; false when more than `budget` items entered after the first k. For small k
// the pairs are kept sorted (an entry shifts a few neighbours), else in a max-heap.
template <typename U, typename Keys>
bool bound_top(int64_t begin, int64_t end, int64_t k, const Keys& key, int64_t budget,
               uint64_t* best) {
  for (int64_t j = 0; j < k; ++j) best[j] = packed_pair(key(begin + j), begin + j);
  bool sorted = k <= kInsertMaxK;
  if (sorted)
    std::sort(best, best + k);
  else
    std::make_heap(best, best + k);
  uint64_t* largest = sorted ? best + k - 1 : best;
  U bound = static_cast<U>(*largest >> 32);
  for (int64_t j = begin + k; j < end; j += kScanBlock) {
    int64_t stop = std::min(end, j + kScanBlock);
    // Most blocks hold no entry: one pass counting them says so (a sum, which compilers
    // vectorise, where an `any |=` loop was left scalar).
    uint32_t below = 0;
    for (int64_t i = j; i < stop; ++i) below += key(i) < bound;
    if (below == 0) continue;
    for (int64_t i = j; i < stop; ++i) {
      U v = key(i);
      if (v >= bound) continue;
      if (--budget < 0) return false;
      uint64_t pair = packed_pair(v, i);
      if (sorted) {
        int64_t at = k - 1;
        for (; at > 0 && best[at - 1] > pair; --at) best[at] = best[at - 1];
        best[at] = pair;
      } else {
        std::pop_heap(best, best + k);
        best[k - 1] = pair;
        std::push_heap(best, best + k);
      }
      bound = static_cast<U>(*largest >> 32);
    }
  }
  return true;
}

// Calls f(RowKeys<Kind, U>) for the row at `row` with the format's kind fixed at compile time.
template <typename U, typename F>
auto with_row_keys(const unsigned char* row, const KeyFormat<U>& format, U flip, const F& f) {
  switch (format.kind) {
    case vocab::KeyKind::Signed:
      return f(RowKeys<vocab::KeyKind::Signed, U>{row, format.inf_bits, flip});
    case vocab::KeyKind::Float:
      return f(RowKeys<vocab::KeyKind::Float, U>{row, format.inf_bits, flip});
    default:
      return f(RowKeys<vocab::KeyKind::Unsigned, U>{row, format.inf_bits, flip});
  }
}

int64_t entry_budget(int64_t items, int64_t k) { return items / 4 + 4 * k; }

// One long row by ranges, one per thread (Note [Top k by a running bound]); false when a range
// ran out of budget (nothing written).
template <typename U, typename Key>
bool split_top(int64_t cols, int64_t k, const Key& key, int64_t* out) {
  int64_t parts =
      std::min<int64_t>(max_threads(), cols / std::max(kSplitRowItems, k * kBoundRowsPerK));
  parts = std::max<int64_t>(parts, 1);
  std::vector<uint64_t> kept(static_cast<size_t>(parts * k));  // each range's k best
  std::vector<char> done(static_cast<size_t>(parts), 0);
  parallel_for(parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      int64_t begin = cols / parts * p, end = p + 1 == parts ? cols : cols / parts * (p + 1);
      done[p] = bound_top<U>(begin, end, k, key, entry_budget(end - begin, k), kept.data() + p * k);
    }
  });
  for (char d : done)
    if (!d) return false;
  auto kth = kept.begin() + k;
  if (parts > 1) std::nth_element(kept.begin(), kth, kept.end());
  std::sort(kept.begin(), kth);
  for (int64_t j = 0; j < k; ++j) out[j] = static_cast<int64_t>(kept[j] & 0xffffffffu);
  return true;
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
    U flip = descending ? static_cast<U>(~U(0)) : U(0);
    // Note [Top k by a running bound]: packed pairs need keys of at most 32 bits.
    bool bounded = sizeof(U) <= 4 && cols <= (int64_t{1} << 32) && k * kBoundRowsPerK <= cols;
    if (bounded && cols >= kSplitRowItems && rows < max_threads()) {
      TopScratch<U> scratch;
      for (int64_t r = 0; r < rows; ++r) {
        const unsigned char* row = base + r * row_bytes;
        bool done = with_row_keys(row, format, flip, [&](const auto& key) {
          return split_top<U>(cols, k, key, out + r * k);
        });
        if (!done) top_row(row, cols, k, out + r * k, format, descending, scratch);
      }
      return;
    }
    int64_t row_cost = std::max<int64_t>(1, cols + k * log2_ceil(k));
    parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / row_cost), [&](int64_t b, int64_t e) {
      TopScratch<U> scratch;
      std::vector<uint64_t> heap(bounded ? static_cast<size_t>(k) : 0);
      for (int64_t r = b; r < e; ++r) {
        const unsigned char* row = base + r * row_bytes;
        int64_t* row_out = out + r * k;
        bool done = bounded && with_row_keys(row, format, flip, [&](const auto& key) {
                      return bound_top<U>(0, cols, k, key, entry_budget(cols, k), heap.data());
                    });
        if (done) {
          std::sort(heap.begin(), heap.end());
          for (int64_t j = 0; j < k; ++j) row_out[j] = static_cast<int64_t>(heap[j] & 0xffffffffu);
        } else {
          top_row(row, cols, k, row_out, format, descending, scratch);
        }
      }
    });
  });
}

}  // namespace genesis::cpu

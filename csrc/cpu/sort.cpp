#include "cpu/sort.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>
#include <vector>

#include "core/allocator.h"
#include "core/errors.h"
#include "cpu/parallel.h"
#include "cpu/sort_keys.h"

namespace genesis::cpu {

namespace {

// Note [Packed sort]: a stable sort of (key, position) pairs is an unstable sort of the pairs
// ordered by key, then position, and when the key has at most 32 bits and the row fewer than
// 2^32 items the pair packs into one uint64 whose integer order is that order. Short rows use
// std::sort on those integers; longer ones radix sorts on the key bits only (stable, so the
// positions stay in order without being sorted on): an LSD radix sort (Note [Parallel radix
// passes]), or for long rows of packed pairs one pass into groups of key prefixes sorted in cache
// (Note [Sort by prefix groups]). Every radix pass whose digit is the same in every item is
// skipped. Descending sorts invert the key, not the position, so equal items still keep their
// input order.
constexpr int64_t kRadixMinItems = 2048;

// The items a row sort moves: packed pairs (Note [Packed sort]) or, for wider keys or longer
// rows, a key beside an int64 position.
template <typename U>
struct PackedItems {
  using Item = uint64_t;
  static Item make(U key, int64_t j) { return packed_pair(key, j); }
  static U key(Item v) { return static_cast<U>(v >> 32); }
  static int64_t position(Item v) { return static_cast<int64_t>(v & 0xffffffffu); }
};

template <typename U>
struct WideItems {
  struct Item {
    U key;
    int64_t position;
    bool operator<(const Item& o) const {
      return key < o.key || (key == o.key && position < o.position);
    }
  };
  static Item make(U key, int64_t j) { return {key, j}; }
  static U key(const Item& v) { return v.key; }
  static int64_t position(const Item& v) { return v.position; }
};

// Scratch memory kept across the rows one thread sorts, never zero-filled. It comes from the
// CPU heap, which maps buffers of 1 MiB and more with transparent huge pages (the radix passes
// scatter over the whole buffer, and with 4 KB pages their writes miss the TLB: sort of 2^24
// float16 about 250 -> 180 ms) and keeps them when freed (Note [Host block cache]): the next
// sort of that size reuses them instead of faulting in fresh pages (2-core VM, sort of 2^24
// float32 normals, after the runs of packed_run below: 62 -> 53 ms).
class Scratch {
 public:
  template <typename T>
  T* get(size_t n) {
    size_t bytes = std::max<size_t>(n * sizeof(T), 1);
    if (bytes > bytes_) {
      data_ = DataPtr();  // the smaller block goes back first
      data_ = cpu_allocator()->allocate(bytes);
      bytes_ = bytes;
    }
    return static_cast<T*>(data_.get());
  }

 private:
  DataPtr data_;
  size_t bytes_ = 0;
};

struct SortScratch {
  Scratch items, spare;
  std::vector<size_t> counts, next, group_starts;
  std::vector<uint32_t> prefix_counts, group_of, group_lows, group_highs;
};

// Note [Values from keys] (kernels/sort.cu) on the CPU: the final pass of a sort writes the
// sorted values beside the positions, decoded from the keys (the inverse of vocab::sort_key),
// instead of a random gather of the input afterwards. A float's zero key (-0.0 and +0.0) and NaN
// key (every payload) stand for several values: those are read through their positions.
template <typename U>
struct ValueWriter {
  const unsigned char* row;
  KeyFormat<U> format;
  U flip;
  U* values;  // null: positions only

  void operator()(int64_t to, U key, int64_t position) const {
    if (!values) return;
    constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
    key = static_cast<U>(key ^ flip);
    U bits = key;
    if (format.kind == vocab::KeyKind::Signed) {
      bits = static_cast<U>(key ^ sign);
    } else if (format.kind == vocab::KeyKind::Float) {
      if (key == sign || key == static_cast<U>(~U(0)))
        std::memcpy(&bits, row + position * static_cast<int64_t>(sizeof(U)), sizeof(U));
      else
        bits = (key & sign) ? static_cast<U>(key & ~sign) : static_cast<U>(~key);
    }
    values[to] = bits;
  }

  // Writes positions[i] and (when values is set) values[to + i] of m sorted packed items
  // (Note [Packed sort]): two plain loops over the run, the values decoded without a branch
  // per item; keys standing for several values are read back afterwards. A group of Note [Sort
  // by prefix groups] ends with one: its last pass scattering the items within the group and
  // this run reading them in order took the 2-core VM's sort of 2^24 float32 normals from 70 to
  // 62 ms, against scattering positions and values one item at a time.
  void packed_run(const uint64_t* items, size_t m, int64_t* positions, int64_t to) const {
    for (size_t i = 0; i < m; ++i) positions[i] = static_cast<int64_t>(items[i] & 0xffffffffu);
    if (!values) return;
    constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
    U* v = values + to;
    auto key_of_item = [&](size_t i) {
      return static_cast<U>(static_cast<U>(items[i] >> 32) ^ flip);
    };
    if (format.kind == vocab::KeyKind::Float) {
      bool several = false;  // a zero or NaN key among them
      for (size_t i = 0; i < m; ++i) {
        U key = key_of_item(i);
        several |= key == sign || key == static_cast<U>(~U(0));
        v[i] = (key & sign) ? static_cast<U>(key & ~sign) : static_cast<U>(~key);
      }
      if (several)
        for (size_t i = 0; i < m; ++i)
          (*this)(to + static_cast<int64_t>(i), key_of_item(i) ^ flip, positions[i]);
    } else {
      U toggle = format.kind == vocab::KeyKind::Signed ? sign : U(0);
      for (size_t i = 0; i < m; ++i) v[i] = static_cast<U>(key_of_item(i) ^ toggle);
    }
  }
};

// Rows at least this long sort in parallel tasks (Note [Parallel radix passes]) and, with keys
// of at most 32 bits, by prefix groups (Note [Sort by prefix groups]).
constexpr size_t kParallelRadixItems = size_t{1} << 20;

size_t radix_tasks(size_t n) {
  return n >= kParallelRadixItems ? static_cast<size_t>(max_threads()) : 1;
}

// Note [Parallel radix passes]: the LSD radix sort reads a row once to count the digits of every
// pass (per task), then each pass scatters the items, the first straight from the row (making
// the keys) and the last straight into the positions and values (Note [Values from keys]), so a
// pass is one read and one write. A long row (2^20 items and more) is cut into `tasks` fixed
// ranges sorted in parallel: the offsets run bucket by bucket and within a bucket task by task
// (so equal digits keep their order: the pass stays stable), and every task scatters its range,
// counting the next pass's digits of what it writes per task range they land in. Rows sorted
// inside a parallel loop over rows run the tasks in turn (parallel_for nests serially). Long
// rows of 32-bit keys take 11-bit digits (3 passes instead of 4), others 8-bit ones.
template <typename Items, int kDigit, typename U>
void radix_sort_row(const unsigned char* row, int64_t cols, const ValueWriter<U>& out,
                    int64_t* positions, SortScratch& scratch) {
  using Item = typename Items::Item;
  constexpr int kPasses = (8 * static_cast<int>(sizeof(U)) + kDigit - 1) / kDigit;
  constexpr size_t kBuckets = size_t{1} << kDigit;
  size_t n = static_cast<size_t>(cols), tasks = radix_tasks(n);
  auto first = [&](size_t t) { return n / tasks * t + std::min(t, n % tasks); };
  auto key_in = [&](size_t j) {
    return static_cast<U>(key_at(row, static_cast<int64_t>(j), out.format) ^ out.flip);
  };
  auto digit = [](U key, int pass) { return size_t(key >> (pass * kDigit)) & (kBuckets - 1); };
  std::vector<size_t>& counts = scratch.counts;
  counts.assign(tasks * kPasses * kBuckets, 0);
  auto counts_of = [&](size_t t, int p) { return counts.data() + (t * kPasses + p) * kBuckets; };
  parallel_for(static_cast<int64_t>(tasks), 1, [&](int64_t b, int64_t e) {
    for (size_t t = static_cast<size_t>(b); t < static_cast<size_t>(e); ++t) {
      size_t* c = counts_of(t, 0);
      for (size_t j = first(t); j < first(t + 1); ++j) {
        U key = key_in(j);
        for (int p = 0; p < kPasses; ++p) ++c[p * kBuckets + digit(key, p)];
      }
    }
  });
  int active[kPasses];  // the passes that move something
  int passes = 0;
  for (int p = 0; p < kPasses; ++p) {
    bool one_digit = false;
    for (size_t d = 0; d < kBuckets && !one_digit; ++d) {
      size_t total = 0;
      for (size_t t = 0; t < tasks; ++t) total += counts_of(t, p)[d];
      one_digit = total == n;
    }
    if (!one_digit) active[passes++] = p;
  }
  if (passes == 0) {  // every key equal: the row as it is
    for (size_t j = 0; j < n; ++j) positions[j] = static_cast<int64_t>(j);
    if (out.values) std::memcpy(out.values, row, n * sizeof(U));
    return;
  }
  Item* src = nullptr;
  Item* dst = passes > 1 ? scratch.items.get<Item>(n) : nullptr;
  Item* other = passes > 2 ? scratch.spare.get<Item>(n) : nullptr;
  std::vector<size_t>& next = scratch.next;  // [writing task][task range][digit]
  for (int i = 0; i < passes; ++i) {
    int p = active[i];
    size_t start = 0;
    for (size_t d = 0; d < kBuckets; ++d) {
      for (size_t t = 0; t < tasks; ++t) {
        size_t count = counts_of(t, p)[d];
        counts_of(t, p)[d] = start;
        start += count;
      }
    }
    bool last = i + 1 == passes;
    int q = last ? 0 : active[i + 1];
    if (!last) next.assign(tasks * tasks * kBuckets, 0);
    auto scatter = [&](auto read, auto write) {
      parallel_for(static_cast<int64_t>(tasks), 1, [&](int64_t b, int64_t e) {
        for (size_t t = static_cast<size_t>(b); t < static_cast<size_t>(e); ++t) {
          size_t* offsets = counts_of(t, p);
          size_t* next_counts = next.data() + t * tasks * kBuckets;
          for (size_t j = first(t); j < first(t + 1); ++j) {
            Item item = read(j);
            write(offsets[digit(Items::key(item), p)]++, item, next_counts);
          }
        }
      });
    };
    auto from_row = [&](size_t j) { return Items::make(key_in(j), static_cast<int64_t>(j)); };
    auto from_items = [&](size_t j) { return src[j]; };
    auto to_items = [&](size_t to, const Item& item, size_t* next_counts) {
      dst[to] = item;
      size_t range = 0;  // the task range `to` falls in, without a branch
      for (size_t t = 1; t < tasks; ++t) range += to >= first(t);
      ++next_counts[range * kBuckets + digit(Items::key(item), q)];
    };
    auto to_output = [&](size_t to, const Item& item, size_t*) {
      int64_t j = Items::position(item);
      positions[to] = j;
      out(static_cast<int64_t>(to), Items::key(item), j);
    };
    if (i == 0 && last)
      scatter(from_row, to_output);
    else if (i == 0)
      scatter(from_row, to_items);
    else if (last)
      scatter(from_items, to_output);
    else
      scatter(from_items, to_items);
    if (last) break;
    for (size_t range = 0; range < tasks; ++range) {
      size_t* c = counts_of(range, q);
      for (size_t d = 0; d < kBuckets; ++d) {
        size_t total = 0;
        for (size_t t = 0; t < tasks; ++t) total += next[(t * tasks + range) * kBuckets + d];
        c[d] = total;
      }
    }
    src = dst;
    dst = other;
    other = src;
  }
}

// Note [Sort by prefix groups]: an LSD sort of a long row scatters every item across the whole
// row once per pass, and with random digits each write misses the cache (three 11-bit passes of
// 2^24 float32: about 130 ms each on two cores). Instead, one read counts the items of each
// 16-bit key prefix; consecutive prefixes form groups of about n / 1024 items (a prefix is never
// split; groups below 4096 items merge on), one stable scatter puts every item into its group
// (the offsets task by task within a group, as Note [Parallel radix passes]), and each group,
// small enough for the cache, is sorted by an LSD radix sort on its keys' offset from its first
// prefix, the last pass writing the positions and values (Note [Values from keys]); the tasks
// take the groups that start in their ranges. Data that fills a group beyond
// kMaxGroupItems (few distinct prefixes) takes the LSD sort of the whole row instead. Two cores,
// 2^24 float32: argsort about 600 -> 200 ms, sort (with the values) about 820 -> 230 ms.
constexpr int kPrefixBits = 16;
constexpr size_t kTargetGroups = 1024;
constexpr size_t kMinGroupItems = 4096;
constexpr size_t kMaxGroupItems = size_t{1} << 18;
constexpr int kGroupDigit = 11;  // at most 3 passes per group for 32-bit keys

// Sorts the m packed items of one group, whose keys lie in [base, base + 2^bits), into `to`
// onwards of the output.
template <typename U>
void sort_group(uint64_t* items, uint64_t* spare, uint32_t* counts, size_t m, U base, int bits,
                int64_t* positions, const ValueWriter<U>& out, int64_t to) {
  using Items = PackedItems<U>;
  if (m <= 64 || bits == 0) {
    if (bits > 0) std::sort(items, items + m);  // (key, position) order
    out.packed_run(items, m, positions, to);
    return;
  }
  int passes = (bits + kGroupDigit - 1) / kGroupDigit;
  int width = (bits + passes - 1) / passes;
  size_t buckets = size_t{1} << width, mask = buckets - 1;
  std::memset(counts, 0, sizeof(uint32_t) * buckets * static_cast<size_t>(passes));
  auto rel = [&](uint64_t item) { return static_cast<U>(Items::key(item) - base); };
  for (size_t i = 0; i < m; ++i) {
    U r = rel(items[i]);
    for (int p = 0; p < passes; ++p) ++counts[p * buckets + ((r >> (width * p)) & mask)];
  }
  int active[4];
  int moving = 0;
  for (int p = 0; p < passes; ++p) {
    bool one_digit = false;
    for (size_t d = 0; d < buckets && !one_digit; ++d) one_digit = counts[p * buckets + d] == m;
    if (!one_digit) active[moving++] = p;
  }
  if (moving == 0) {
    out.packed_run(items, m, positions, to);
    return;
  }
  uint64_t* src = items;
  uint64_t* dst = spare;
  for (int k = 0; k < moving; ++k) {
    uint32_t* offsets = counts + active[k] * buckets;
    uint32_t start = 0;
    for (size_t d = 0; d < buckets; ++d) {
      uint32_t count = offsets[d];
      offsets[d] = start;
      start += count;
    }
    int shift = width * active[k];
    for (size_t i = 0; i < m; ++i) dst[offsets[(rel(src[i]) >> shift) & mask]++] = src[i];
    std::swap(src, dst);
  }
  out.packed_run(src, m, positions, to);
}

// The sort of Note [Sort by prefix groups] for keys of 16 or 32 bits; false, having written
// nothing, when a group would hold more than kMaxGroupItems.
template <typename U>
bool group_sort_row(const unsigned char* row, int64_t cols, const ValueWriter<U>& out,
                    int64_t* positions, SortScratch& scratch) {
  static_assert(sizeof(U) == 2 || sizeof(U) == 4);
  using Items = PackedItems<U>;
  constexpr int kLowBits = 8 * static_cast<int>(sizeof(U)) - kPrefixBits;
  constexpr size_t kPrefixes = size_t{1} << kPrefixBits;
  size_t n = static_cast<size_t>(cols), tasks = radix_tasks(n);
  auto first = [&](size_t t) { return n / tasks * t + std::min(t, n % tasks); };
  auto key_in = [&](size_t j) {
    return static_cast<U>(key_at(row, static_cast<int64_t>(j), out.format) ^ out.flip);
  };
  std::vector<uint32_t>& prefix_counts = scratch.prefix_counts;  // [task][prefix]
  prefix_counts.assign(tasks * kPrefixes, 0);
  parallel_for(static_cast<int64_t>(tasks), 1, [&](int64_t b, int64_t e) {
    for (size_t t = static_cast<size_t>(b); t < static_cast<size_t>(e); ++t) {
      uint32_t* c = prefix_counts.data() + t * kPrefixes;
      for (size_t j = first(t); j < first(t + 1); ++j) ++c[key_in(j) >> kLowBits];
    }
  });
  size_t budget = std::max(n / kTargetGroups, kMinGroupItems);
  std::vector<uint32_t>& group_of = scratch.group_of;  // prefix -> group
  std::vector<size_t>& starts = scratch.group_starts;  // group g: items [starts[g], starts[g+1])
  std::vector<uint32_t>& lows = scratch.group_lows;    // its first and last non-empty prefix
  std::vector<uint32_t>& highs = scratch.group_highs;
  group_of.resize(kPrefixes);
  starts.assign(1, 0);
  lows.assign(1, 0);
  highs.assign(1, 0);
  size_t in_group = 0, placed = 0, largest = 0;
  for (size_t prefix = 0; prefix < kPrefixes; ++prefix) {
    size_t total = 0;
    for (size_t t = 0; t < tasks; ++t) total += prefix_counts[t * kPrefixes + prefix];
    if (total > 0 && in_group > 0 && in_group + total > budget) {
      starts.push_back(placed);
      lows.push_back(0);
      highs.push_back(0);
      in_group = 0;
    }
    group_of[prefix] = static_cast<uint32_t>(starts.size() - 1);
    if (total == 0) continue;
    if (in_group == 0) lows.back() = static_cast<uint32_t>(prefix);
    highs.back() = static_cast<uint32_t>(prefix);
    in_group += total;
    placed += total;
    largest = std::max(largest, in_group);
  }
  if (largest > kMaxGroupItems) return false;
  size_t groups = starts.size();
  starts.push_back(n);
  std::vector<size_t>& offsets = scratch.counts;  // [task][group]
  offsets.assign(tasks * groups, 0);
  for (size_t t = 0; t < tasks; ++t)
    for (size_t prefix = 0; prefix < kPrefixes; ++prefix)
      offsets[t * groups + group_of[prefix]] += prefix_counts[t * kPrefixes + prefix];
  for (size_t g = 0; g < groups; ++g) {
    size_t start = starts[g];
    for (size_t t = 0; t < tasks; ++t) {
      size_t count = offsets[t * groups + g];
      offsets[t * groups + g] = start;
      start += count;
    }
  }
  uint64_t* items = scratch.items.get<uint64_t>(n);
  parallel_for(static_cast<int64_t>(tasks), 1, [&](int64_t b, int64_t e) {
    for (size_t t = static_cast<size_t>(b); t < static_cast<size_t>(e); ++t) {
      size_t* to = offsets.data() + t * groups;
      const uint32_t* group = group_of.data();
      for (size_t j = first(t); j < first(t + 1); ++j) {
        U key = key_in(j);
        items[to[group[key >> kLowBits]]++] = Items::make(key, static_cast<int64_t>(j));
      }
    }
  });
  uint64_t* spare = scratch.spare.get<uint64_t>(tasks * largest);
  parallel_for(static_cast<int64_t>(tasks), 1, [&](int64_t b, int64_t e) {
    std::vector<uint32_t> counts(3 << kGroupDigit);
    for (size_t t = static_cast<size_t>(b); t < static_cast<size_t>(e); ++t) {
      size_t g = static_cast<size_t>(std::lower_bound(starts.begin(),
                                                      starts.begin() + static_cast<int64_t>(groups),
                                                      first(t)) -
                                     starts.begin());
      for (; g < groups && starts[g] < first(t + 1); ++g) {
        size_t m = starts[g + 1] - starts[g];
        if (m == 0) continue;
        uint32_t span = highs[g] - lows[g];
        int bits = kLowBits + (span == 0 ? 0 : std::bit_width(span));
        auto to = static_cast<int64_t>(starts[g]);
        sort_group<U>(items + starts[g], spare + t * largest, counts.data(), m,
                      static_cast<U>(U(lows[g]) << kLowBits), bits, positions + to, out, to);
      }
    }
  });
  return true;
}

template <typename Items, typename U>
void small_sort_row(const unsigned char* row, int64_t cols, const ValueWriter<U>& out,
                    int64_t* positions, SortScratch& scratch) {
  using Item = typename Items::Item;
  Item* items = scratch.items.get<Item>(static_cast<size_t>(cols));
  for (int64_t j = 0; j < cols; ++j)
    items[j] = Items::make(static_cast<U>(key_at(row, j, out.format) ^ out.flip), j);
  std::sort(items, items + cols);
  for (int64_t j = 0; j < cols; ++j) {
    positions[j] = Items::position(items[j]);
    out(j, Items::key(items[j]), positions[j]);
  }
}

// One row's positions (and values, when `values` is not null) in sorted order.
template <typename U>
void sort_row(const unsigned char* row, int64_t cols, int64_t* positions, U* values,
              const KeyFormat<U>& format, bool descending, SortScratch& scratch) {
  ValueWriter<U> out{row, format, descending ? static_cast<U>(~U(0)) : U(0), values};
  constexpr int kLongDigit = sizeof(U) == 4 ? 11 : 8;
  bool long_row = static_cast<size_t>(cols) >= kParallelRadixItems;
  if (sizeof(U) <= 4 && cols < (int64_t{1} << 32)) {
    if (cols < kRadixMinItems) {
      small_sort_row<PackedItems<U>>(row, cols, out, positions, scratch);
    } else if (!long_row) {
      radix_sort_row<PackedItems<U>, 8>(row, cols, out, positions, scratch);
    } else if constexpr (sizeof(U) == 2 || sizeof(U) == 4) {
      if (!group_sort_row(row, cols, out, positions, scratch))
        radix_sort_row<PackedItems<U>, kLongDigit>(row, cols, out, positions, scratch);
    } else {
      radix_sort_row<PackedItems<U>, 8>(row, cols, out, positions, scratch);
    }
    return;
  }
  if (cols < kRadixMinItems)
    small_sort_row<WideItems<U>>(row, cols, out, positions, scratch);
  else
    radix_sort_row<WideItems<U>, 8>(row, cols, out, positions, scratch);
}

}  // namespace

void sort_rows(const Tensor& values, const Tensor& indices, bool descending,
               const Tensor* sorted_values) {
  GENESIS_CHECK(values.is_contiguous() && indices.is_contiguous() &&
                    indices.dtype() == ScalarType::Int64 && values.numel() == indices.numel(),
                "sort", "expected contiguous values and int64 indices of one size");
  GENESIS_CHECK(!sorted_values ||
                    (sorted_values->is_contiguous() && sorted_values->dtype() == values.dtype() &&
                     sorted_values->numel() == values.numel()),
                "sort", "expected contiguous sorted values of the input's dtype and size");
  if (values.numel() == 0) return;
  int64_t cols = values.ndim() == 0 ? 1 : values.sizes().back();
  int64_t rows = values.numel() / cols;
  const auto* base = static_cast<const unsigned char*>(values.data());
  auto* out = indices.mutable_data_as<int64_t>();
  int64_t row_bytes = cols * static_cast<int64_t>(itemsize(values.dtype()));
  with_key_format(values.dtype(), "sort", [&](auto format) {
    using U = decltype(format.inf_bits);
    U* sorted = sorted_values ? sorted_values->mutable_data_as<U>() : nullptr;
    // A row costs about cols * log2(cols) element operations.
    int64_t row_cost = std::max<int64_t>(1, cols * log2_ceil(cols));
    parallel_for(rows, std::max<int64_t>(1, kDefaultGrain / row_cost), [&](int64_t b, int64_t e) {
      SortScratch scratch;  // one per thread, reused by its rows
      for (int64_t r = b; r < e; ++r)
        sort_row(base + r * row_bytes, cols, out + r * cols, sorted ? sorted + r * cols : nullptr,
                 format, descending, scratch);
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

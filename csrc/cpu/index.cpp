#include "cpu/index.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <type_traits>

#include "core/errors.h"
#include "cpu/elementwise.h"
#include "cpu/half_simd.h"
#include "cpu/loop.h"

namespace genesis::cpu {

void add_index_offsets(const Tensor& offsets, const Tensor& index, int64_t size,
                       int64_t byte_stride, int64_t dim) {
  LoopPlan plan = plan_operands(offsets, {&offsets, &index});
  std::atomic<bool> bad{false};
  std::atomic<int64_t> bad_value{0};
  for_each_run<2>(plan, {written_base(offsets), read_base(index)},
                  [&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
                    for (int64_t i = 0; i < n; ++i) {
                      int64_t v = *reinterpret_cast<const int64_t*>(p[1] + i * st[1]);
                      if (v < -size || v >= size) {
                        bad = true;
                        bad_value = v;
                        continue;
                      }
                      if (v < 0) v += size;
                      *reinterpret_cast<int64_t*>(p[0] + i * st[0]) += v * byte_stride;
                    }
                  });
  GENESIS_CHECK_INDEX(!bad, "index", "index ", bad_value.load(), " is out of bounds for dimension ",
                      dim, " with size ", size);
}

namespace {
// Note [Prefetched gathers and scatters]: a gather or scatter of random offsets waits on memory
// for each item it reads or read-modify-writes, and only the few items that fit the core's
// window are in flight at once. So the loops prefetch the item kPrefetchAhead positions ahead
// (its offset is read early for that): the misses, and the page walks, overlap far more.
// 2-core VM, scatter_add_ of 2^24 random float32 values into 2^24 (one thread, Note
// [Accumulating scatters]): 155 ms without, 128/108/83/59/58 ms prefetching 16/32/64/128/256
// ahead; NumPy's np.add.at 120 ms. Cutting that scatter over two threads by destination cache
// line instead (each thread walks every value and combines those in its own lines, keeping the
// order) was slower than one thread: 169 ms without prefetching, 144 ms with. Prefetching 128
// ahead also took gather(0, idx) of 2^24 float32 from 79 to 33 ms (two threads) and the
// assigning scatter_ from 59 to 50 ms.
constexpr int64_t kPrefetchAhead = 128;
constexpr int64_t kCachedFiberBytes = 64 << 10;
constexpr int64_t kRowsAhead = 2;  // Note [Prefetched rows]

// Note [Gathering whole rows]: where a run's offset does not change (the offsets broadcast along
// it: x[rows], index_select of rows) and both sides are dense, the run is one block of the source
// (no word of it needs its own offset) and is copied with memcpy.
template <typename Word>
void gather_words(const LoopPlan& plan, const Tensor& out, const Tensor& src, const Tensor& off) {
  for_each_run<3>(plan, {written_base(out), read_base(src), read_base(off)},
                  [](const std::array<char*, 3>& p, const std::array<int64_t, 3>& st, int64_t n) {
                    constexpr int64_t w = sizeof(Word);
                    if (st[2] == 0 && st[0] == w && st[1] == w) {
                      int64_t o = *reinterpret_cast<const int64_t*>(p[2]);
                      std::memcpy(p[0], p[1] + o, static_cast<size_t>(n * w));
                      return;
                    }
                    auto source = [&](int64_t i) {
                      return p[1] + i * st[1] + *reinterpret_cast<const int64_t*>(p[2] + i * st[2]);
                    };
                    for (int64_t i = 0; i < n; ++i) {  // Note [Prefetched gathers and scatters]
                      if (i + kPrefetchAhead < n) __builtin_prefetch(source(i + kPrefetchAhead));
                      *reinterpret_cast<Word*>(p[0] + i * st[0]) =
                          *reinterpret_cast<const Word*>(source(i));
                    }
                  });
}
template <typename Word>
void scatter_words(const LoopPlan& plan, const Tensor& dst, const Tensor& off, const Tensor& val) {
  // One thread, values (contiguous, operand 0) in row-major order: with duplicate indices the
  // last value wins, as in NumPy.
  for_each_run<3>(
      plan, {read_base(val), written_base(dst), read_base(off)},
      [](const std::array<char*, 3>& p, const std::array<int64_t, 3>& st, int64_t n) {
        auto destination = [&](int64_t i) {
          return p[1] + i * st[1] + *reinterpret_cast<const int64_t*>(p[2] + i * st[2]);
        };
        for (int64_t i = 0; i < n; ++i) {  // Note [Prefetched gathers and scatters]
          if (i + kPrefetchAhead < n) __builtin_prefetch(destination(i + kPrefetchAhead), 1);
          *reinterpret_cast<Word*>(destination(i)) =
              *reinterpret_cast<const Word*>(p[0] + i * st[0]);
        }
      },
      INT64_MAX);
}
// A row of 16-bit floats combined into a row of them through float chunks, converted with the
// CPU's instructions (cpu/half_simd.h), rounding as the scalar loop does; false, having written
// nothing, where the CPU lacks them.
template <typename T, ops::ScatterReduce R>
bool combine_16bit_row(T* d, const T* v, int64_t n) {
  constexpr bool kBFloat16 = std::is_same_v<T, BFloat16>;
  constexpr int64_t kChunk = 256;
  float into[kChunk], from[kChunk];
  auto* d16 = reinterpret_cast<uint16_t*>(d);
  const auto* v16 = reinterpret_cast<const uint16_t*>(v);
  // Rounding back needs what widening needs and more: a zero-length call asks the CPU.
  if (!narrow_from_float_simd(d16, nullptr, 0, kBFloat16)) return false;
  for (int64_t i = 0; i < n; i += kChunk) {
    int64_t k = std::min(kChunk, n - i);
    widen_to_float_simd(into, d16 + i, k, kBFloat16);
    widen_to_float_simd(from, v16 + i, k, kBFloat16);
    for (int64_t j = 0; j < k; ++j) into[j] = ops::scatter_combine<R, float>(into[j], from[j]);
    narrow_from_float_simd(d16 + i, into, k, kBFloat16);
  }
  return true;
}

// The accumulating scatter, on the storage type T: serial, in row-major order of the values,
// so duplicates combine in a fixed order (Note [Accumulating scatters]).
template <typename T, ops::ScatterReduce R>
void scatter_combine_typed(const LoopPlan& plan, const Tensor& dst, const Tensor& off,
                           const Tensor& val) {
  using C = compute_t<T>;
  // Note [Prefetched rows]: rows combined into random rows start a new page each, where the
  // hardware's prefetchers stop, so both rows kRowsAhead runs on (destination and values) are
  // prefetched by hand: the next runs' offsets are read at the plan's outer stride, up to the
  // last run's. The values' rows matter once threads take column blocks (each run then reads
  // part of a values row, a new page again). 2-core VM, index_add_(0, 16384 random rows) of
  // 16384x1024 float32: 6.3 ms before, 5.15 prefetching the destination, 3.1 both (two
  // threads; PyTorch 3.15).
  const int64_t off_step = plan.ndim() >= 2 ? plan.byte_strides[2][1] : 0;
  const int64_t dst_step = plan.ndim() >= 2 ? plan.byte_strides[1][1] : 0;
  const int64_t val_step = plan.ndim() >= 2 ? plan.byte_strides[0][1] : 0;
  const char* off_last = read_base(off);
  for (int64_t d = 0; d < plan.ndim(); ++d)
    off_last += (plan.sizes[d] - 1) * plan.byte_strides[2][d];
  for_each_run<3>(
      plan, {read_base(val), written_base(dst), read_base(off)},
      [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& st, int64_t n) {
        if (st[2] == 0 && st[0] == sizeof(T) && st[1] == sizeof(T)) {
          // One offset for the whole run and both sides dense: a row combined into a row
          // (index_add_ of rows), a loop the compiler vectorizes.
          const char* ahead = p[2] + kRowsAhead * off_step;
          if (off_step > 0 && ahead <= off_last) {
            const char* row =
                p[1] + kRowsAhead * dst_step + *reinterpret_cast<const int64_t*>(ahead);
            const char* from = p[0] + kRowsAhead * val_step;
            for (int64_t b = 0; b < n * static_cast<int64_t>(sizeof(T)); b += 64) {
              __builtin_prefetch(row + b, 1);
              __builtin_prefetch(from + b, 0);
            }
          }
          T* d = reinterpret_cast<T*>(p[1] + *reinterpret_cast<const int64_t*>(p[2]));
          const T* v = reinterpret_cast<const T*>(p[0]);
          if constexpr (kSixteenBitFloat<T>)
            if (combine_16bit_row<T, R>(d, v, n)) return;
          for (int64_t i = 0; i < n; ++i)
            d[i] = static_cast<T>(
                ops::scatter_combine<R, C>(static_cast<C>(d[i]), static_cast<C>(v[i])));
          return;
        }
        auto destination = [&](int64_t i) {
          return p[1] + i * st[1] + *reinterpret_cast<const int64_t*>(p[2] + i * st[2]);
        };
        for (int64_t i = 0; i < n; ++i) {  // Note [Prefetched gathers and scatters]
          if (i + kPrefetchAhead < n) __builtin_prefetch(destination(i + kPrefetchAhead), 1);
          T* d = reinterpret_cast<T*>(destination(i));
          C v = static_cast<C>(*reinterpret_cast<const T*>(p[0] + i * st[0]));
          *d = static_cast<T>(ops::scatter_combine<R, C>(static_cast<C>(*d), v));
        }
      },
      INT64_MAX);
}
template <typename Word>
void fill_masked_words(const LoopPlan& plan, const Tensor& dst, const Tensor& mask,
                       uint64_t pattern) {
  Word value;
  std::memcpy(&value, &pattern, sizeof(Word));
  for_each_run<2>(
      plan, {written_base(dst), read_base(mask)},
      [value](const std::array<char*, 2>& p, const std::array<int64_t, 2>& st, int64_t n) {
        for (int64_t i = 0; i < n; ++i)
          if (*reinterpret_cast<const bool*>(p[1] + i * st[1]))
            *reinterpret_cast<Word*>(p[0] + i * st[0]) = value;
      });
}

template <template <typename> class F, typename... Args>
void by_itemsize(size_t itemsize, Args&&... args) {
  switch (itemsize) {
    case 1:
      return F<uint8_t>::run(args...);
    case 2:
      return F<uint16_t>::run(args...);
    case 4:
      return F<uint32_t>::run(args...);
    case 8:
      return F<uint64_t>::run(args...);
  }
}
template <typename W>
struct Gather {
  static void run(const LoopPlan& p, const Tensor& a, const Tensor& b, const Tensor& c) {
    gather_words<W>(p, a, b, c);
  }
};
template <typename W>
struct Scatter {
  static void run(const LoopPlan& p, const Tensor& a, const Tensor& b, const Tensor& c) {
    scatter_words<W>(p, a, b, c);
  }
};
template <typename W>
struct MaskedFill {
  static void run(const LoopPlan& p, const Tensor& a, const Tensor& b, uint64_t v) {
    fill_masked_words<W>(p, a, b, v);
  }
};
}  // namespace

void gather(const Tensor& out, const Tensor& src, const Tensor& offsets) {
  if (out.numel() == 0) return;
  LoopPlan plan = plan_operands(out, {&out, &src, &offsets});
  by_itemsize<Gather>(out.itemsize(), plan, out, src, offsets);
}

namespace {
void scatter_serial(const Tensor& dst, const Tensor& offsets, const Tensor& values,
                    ops::ScatterReduce reduce) {
  LoopPlan plan = plan_operands(values, {&values, &dst, &offsets});
  if (reduce == ops::ScatterReduce::None)
    return by_itemsize<Scatter>(dst.itemsize(), plan, dst, offsets, values);
  GENESIS_DISPATCH_ALL_TYPES(dst.dtype(), "scatter", [&] {
    ops::visit_scatter_reduce(reduce, [&](auto r) {
      scatter_combine_typed<scalar_t, decltype(r)::value>(plan, dst, offsets, values);
    });
  });
}

Tensor slice_of(const Tensor& t, int64_t d, int64_t begin, int64_t end) {
  Shape sizes = t.sizes();
  sizes[d] = end - begin;
  return t.as_strided(std::move(sizes), t.strides(), t.storage_offset() + begin * t.strides()[d]);
}
}  // namespace

void scatter(const Tensor& dst, const Tensor& offsets, const Tensor& values,
             ops::ScatterReduce reduce, int64_t split_dim) {
  if (dst.numel() == 0) return;
  if (split_dim < 0 || values.numel() < 2 * kDefaultGrain)
    return scatter_serial(dst, offsets, values, reduce);
  const int64_t slices = values.sizes()[split_dim];
  const int64_t per_slice = values.numel() / slices;
  parallel_for(slices, std::max<int64_t>(1, kDefaultGrain / per_slice),
               [&](int64_t begin, int64_t end) {
                 scatter_serial(slice_of(dst, split_dim, begin, end),
                                slice_of(offsets, split_dim, begin, end),
                                slice_of(values, split_dim, begin, end), reduce);
               });
}

namespace {

// Note [Scattering along a dim on the CPU]
// scatter_(dim, index, src) written as an index key needs an arange per other dim, and the
// OFFSETS path then writes and reads an int64 offset per element for each key (16384x1024
// float32 scatter_(1): 29 ms against PyTorch's 7.5 ms). Here, as on CUDA (Note [Gathering along
// a dim] in ops/indexing.cpp), the destination is seen with the index's shape and a 0 stride at
// `dim`, and each item adds index * stride(dim) to its own offset: one pass over the index. Two
// items share a destination only when they differ in `dim` alone, so slices along another dim
// never collide: the threads take whole slices of dim 0 (dim 1 when scattering along dim 0),
// each in row-major order, so duplicates resolve (last value wins) and combine in the order of a
// serial loop, bit for bit. The same holds for a scatter through an index key along any result
// dim that the view gives as it is (index_add_ of rows cut into column blocks: split_dim in
// ops/indexing.cpp), and torch.gather takes the same one pass, its bounds checked in it. A
// fiber's span that fits the caches (64 KiB) is not prefetched (Note [Prefetched gathers and
// scatters]): its lines stay there, and prefetching costs a second read of the index.
// 2-core AVX-512 VM, 16384x1024, median of the benchmark's runs against the key path before:
// scatter_(1) float32 36.3 -> 11.4 ms, 9.6-10.0 ms without the prefetch (PyTorch 10.3-10.8 ms
// in the same runs), float16 36.3 -> 7.0-7.7 ms (PyTorch 31 ms); gather(1) float32 29.3 -> 17.5
// ms (PyTorch 27-28), float16 27.0 -> 13.9 ms; index_add_(0, rows) float32 7.3 -> 6.4 ms.
// Calls store(destination, value pointer) for each item in row-major order of values, the
// destination prefetched ahead (Note [Prefetched gathers and scatters]); one thread.
template <typename Store>
void scatter_items(const Tensor& dst, const Tensor& values, const Tensor& index, int64_t size,
                   int64_t byte_stride, const Store& store) {
  // A fiber's destinations that fit the core's caches are there after the first few: prefetching
  // them only costs a second read of the index.
  const bool prefetch = size * std::abs(byte_stride) > kCachedFiberBytes;
  LoopPlan plan = plan_operands(values, {&values, &dst, &index});
  for_each_run<3>(
      plan, {read_base(values), written_base(dst), read_base(index)},
      [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& st, int64_t n) {
        auto destination = [&](int64_t i) {
          int64_t k = *reinterpret_cast<const int64_t*>(p[2] + i * st[2]);
          return p[1] + i * st[1] + (k < 0 ? k + size : k) * byte_stride;
        };
        if (!prefetch) {
          for (int64_t i = 0; i < n; ++i) store(destination(i), p[0] + i * st[0]);
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          if (i + kPrefetchAhead < n) __builtin_prefetch(destination(i + kPrefetchAhead), 1);
          store(destination(i), p[0] + i * st[0]);
        }
      },
      INT64_MAX);
}

template <typename Store>
void scatter_slices(const Tensor& dst, const Tensor& values, const Tensor& index, int64_t dim,
                    int64_t size, int64_t byte_stride, const Store& store) {
  const int64_t split = dim == 0 ? 1 : 0;
  if (index.ndim() <= split) return scatter_items(dst, values, index, size, byte_stride, store);
  const int64_t slices = index.sizes()[split];
  const int64_t per_slice = std::max<int64_t>(1, index.numel() / std::max<int64_t>(1, slices));
  parallel_for(
      slices, std::max<int64_t>(1, kDefaultGrain / per_slice), [&](int64_t begin, int64_t end) {
        scatter_items(slice_of(dst, split, begin, end), slice_of(values, split, begin, end),
                      slice_of(index, split, begin, end), size, byte_stride, store);
      });
}

template <typename Word>
struct AssignAlongDim {
  static void run(const Tensor& dst, const Tensor& values, const Tensor& index, int64_t dim,
                  int64_t size, int64_t byte_stride) {
    scatter_slices(dst, values, index, dim, size, byte_stride, [](char* d, const char* v) {
      *reinterpret_cast<Word*>(d) = *reinterpret_cast<const Word*>(v);
    });
  }
};

}  // namespace

void scatter_along_dim(const Tensor& dst, const Tensor& values, const Tensor& index, int64_t dim,
                       int64_t size, int64_t byte_stride, ops::ScatterReduce reduce) {
  if (index.numel() == 0) return;
  if (reduce == ops::ScatterReduce::None)
    return by_itemsize<AssignAlongDim>(dst.itemsize(), dst, values, index, dim, size, byte_stride);
  GENESIS_DISPATCH_ALL_TYPES(dst.dtype(), "scatter", [&] {
    using C = compute_t<scalar_t>;
    ops::visit_scatter_reduce(reduce, [&](auto r) {
      constexpr ops::ScatterReduce R = decltype(r)::value;
      scatter_slices(dst, values, index, dim, size, byte_stride, [](char* d, const char* v) {
        auto* to = reinterpret_cast<scalar_t*>(d);
        C value = static_cast<C>(*reinterpret_cast<const scalar_t*>(v));
        *to = static_cast<scalar_t>(ops::scatter_combine<R, C>(static_cast<C>(*to), value));
      });
    });
  });
}

namespace {
template <typename Word>
struct GatherAlongDim {
  static void run(const Tensor& out, const Tensor& src, const Tensor& index, int64_t size,
                  int64_t byte_stride, bool check, std::atomic<bool>& bad,
                  std::atomic<int64_t>& bad_value) {
    const bool prefetch = size * std::abs(byte_stride) > kCachedFiberBytes;  // as the scatter's
    LoopPlan plan = plan_operands(out, {&out, &src, &index});
    for_each_run<3>(
        plan, {written_base(out), read_base(src), read_base(index)},
        [&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& st, int64_t n) {
          auto at = [&](int64_t i) { return *reinterpret_cast<const int64_t*>(p[2] + i * st[2]); };
          auto source = [&](int64_t i, int64_t k) {
            return p[1] + i * st[1] + (k < 0 ? k + size : k) * byte_stride;
          };
          for (int64_t i = 0; i < n; ++i) {          // Note [Prefetched gathers and scatters]
            if (prefetch && i + kPrefetchAhead < n)  // never faults, even out of range
              __builtin_prefetch(source(i + kPrefetchAhead, at(i + kPrefetchAhead)));
            int64_t k = at(i);
            if (check && (k < -size || k >= size)) [[unlikely]] {
              bad_value = k;
              bad = true;
              continue;
            }
            *reinterpret_cast<Word*>(p[0] + i * st[0]) =
                *reinterpret_cast<const Word*>(source(i, k));
          }
        });
  }
};
}  // namespace

void gather_along_dim(const Tensor& out, const Tensor& src, const Tensor& index, int64_t dim,
                      int64_t size, int64_t byte_stride, bool check) {
  if (out.numel() == 0) return;
  std::atomic<bool> bad{false};
  std::atomic<int64_t> bad_value{0};
  by_itemsize<GatherAlongDim>(out.itemsize(), out, src, index, size, byte_stride, check, bad,
                              bad_value);
  GENESIS_CHECK_INDEX(!bad, "index", "index ", bad_value.load(), " is out of bounds for dimension ",
                      dim, " with size ", size);
}

void check_index_range(const Tensor& index, int64_t size, int64_t dim) {
  if (index.numel() == 0) return;
  LoopPlan plan = plan_operands(index, {&index});
  std::atomic<bool> bad{false};
  std::atomic<int64_t> bad_value{0};
  for_each_run<1>(plan, {read_base(index)},
                  [&](const std::array<char*, 1>& p, const std::array<int64_t, 1>& st, int64_t n) {
                    bool out = false;  // a branch-free scan; the value is found only if needed
                    for (int64_t i = 0; i < n; ++i) {
                      int64_t v = *reinterpret_cast<const int64_t*>(p[0] + i * st[0]);
                      out |= v < -size || v >= size;
                    }
                    if (!out) return;
                    for (int64_t i = 0; i < n; ++i) {
                      int64_t v = *reinterpret_cast<const int64_t*>(p[0] + i * st[0]);
                      if (v < -size || v >= size) {
                        bad_value = v;
                        bad = true;
                        return;
                      }
                    }
                  });
  GENESIS_CHECK_INDEX(!bad, "index", "index ", bad_value.load(), " is out of bounds for dimension ",
                      dim, " with size ", size);
}

void masked_fill(const Tensor& dst, const Tensor& mask, uint64_t pattern) {
  if (dst.numel() == 0) return;
  LoopPlan plan = plan_operands(dst, {&dst, &mask});
  by_itemsize<MaskedFill>(dst.itemsize(), plan, dst, mask, pattern);
}

namespace {

// Note [Parallel nonzero]: a contiguous mask is cut into fixed chunks; the threads count each
// chunk's true items, an exclusive prefix sum gives each chunk's first output slot, and the
// threads write the coordinates chunk by chunk. Each item's coordinates are stored without a
// branch (the slot advances only for a true item, so a false item's store is overwritten by the
// next one), which a half-true random mask would otherwise pay for in mispredictions; a chunk
// stops once its last true item is written (a 1-d mask's loop runs to that item, found by the
// counting pass, without checking the slot), so no store reaches the next chunk's slots.
std::vector<Tensor> nonzero_contiguous(const Tensor& mask) {
  const int64_t ndim = mask.ndim(), n = mask.numel();
  const auto* m = static_cast<const uint8_t*>(mask.data());
  const int64_t chunk = std::max<int64_t>(kDefaultGrain * 4, n / 256 + 1);
  const int64_t chunks = n / chunk + (n % chunk != 0);
  std::vector<int64_t> first(static_cast<size_t>(chunks) + 1, 0);
  std::vector<int64_t> stop(static_cast<size_t>(chunks), 0);  // one past each chunk's last true
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t lo = c * chunk, hi = std::min(n, lo + chunk), count = 0;
      for (int64_t i = lo; i < hi; ++i) count += m[i] != 0;
      int64_t end = hi;
      while (end > lo && m[end - 1] == 0) --end;
      first[static_cast<size_t>(c) + 1] = count;
      stop[static_cast<size_t>(c)] = end;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) first[c + 1] += first[c];
  std::vector<Tensor> out;
  std::vector<int64_t*> cols;
  for (int64_t d = 0; d < ndim; ++d) {
    out.push_back(Tensor::empty({first[chunks]}, ScalarType::Int64, kCPU));
    cols.push_back(out.back().mutable_data_as<int64_t>());
  }
  if (ndim == 1) {
    // One dim: a chunk's loop ends at its last true item, so every branch-free store before it
    // lands in the chunk's own slots and the loop needs no slot check.
    int64_t* col = cols[0];
    parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        int64_t k = first[c];
        for (int64_t i = c * chunk; i < stop[c]; ++i) {
          col[k] = i;
          k += m[i] != 0;
        }
      }
    });
    return out;
  }
  const int64_t last = mask.sizes()[ndim - 1];
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(static_cast<size_t>(ndim));
    for (int64_t c = b; c < e; ++c) {
      int64_t lo = c * chunk, hi = std::min(n, lo + chunk);
      int64_t k = first[c], end = first[c + 1];
      for (int64_t d = ndim - 1, rest = lo; d >= 0; --d) {  // lo's coordinates
        idx[d] = rest % mask.sizes()[d];
        rest /= mask.sizes()[d];
      }
      for (int64_t i = lo; i < hi && k < end;) {
        // A run along the last dim: the other coordinates stay fixed.
        int64_t run = std::min(hi - i, last - idx[ndim - 1]), j0 = idx[ndim - 1];
        for (int64_t t = 0; t < run && k < end; ++t) {
          for (int64_t d = 0; d + 1 < ndim; ++d) cols[d][k] = idx[d];
          cols[ndim - 1][k] = j0 + t;
          k += m[i + t] != 0;
        }
        i += run;
        idx[ndim - 1] += run;
        for (int64_t d = ndim - 1; d > 0 && idx[d] == mask.sizes()[d]; --d) {
          idx[d] = 0;
          ++idx[d - 1];
        }
      }
    }
  });
  return out;
}

}  // namespace

std::vector<Tensor> nonzero(const Tensor& mask) {
  if (mask.is_contiguous() && mask.numel() > 0 && mask.ndim() > 0 && itemsize(mask.dtype()) == 1)
    return nonzero_contiguous(mask);
  // Row-major walk over the mask's own strides: count, then write coordinates. The walk is
  // serial, so it lets the caller's lock go itself when it is long (Note [Releasing the caller's
  // lock] in core/caller_lock.h).
  const int64_t ndim = mask.ndim(), n = mask.numel();
  std::optional<UnlockedRegion> unlocked;
  if (n >= kDefaultGrain) unlocked.emplace();
  const char* base = static_cast<const char*>(mask.data());
  auto for_each = [&](auto&& visit) {
    std::vector<int64_t> idx(static_cast<size_t>(ndim), 0);
    int64_t off = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (base[off]) visit(idx);
      for (int64_t d = ndim - 1; d >= 0; --d) {
        if (++idx[d] < mask.sizes()[d]) {
          off += mask.strides()[d];
          break;
        }
        off -= (mask.sizes()[d] - 1) * mask.strides()[d];
        idx[d] = 0;
      }
    }
  };
  int64_t count = 0;
  for_each([&](const std::vector<int64_t>&) { ++count; });
  std::vector<Tensor> out;
  std::vector<int64_t*> cols;
  for (int64_t d = 0; d < ndim; ++d) {
    out.push_back(Tensor::empty({count}, ScalarType::Int64, kCPU));
    cols.push_back(out.back().mutable_data_as<int64_t>());
  }
  int64_t k = 0;
  for_each([&](const std::vector<int64_t>& idx) {
    for (int64_t d = 0; d < ndim; ++d) cols[d][k] = idx[d];
    ++k;
  });
  return out;
}

}  // namespace genesis::cpu

// CPU reductions over a contiguous [outer, reduce, inner] input. Contiguous rows (inner == 1)
// run through kLanes independent accumulators, so the loop vectorizes and float sums keep
// their error small; a single long row is split over the threads and the pieces combined in
// order. Columns (inner > 1) accumulate a block of neighbouring outputs per pass over the
// reduced dim, so reads stay sequential. Float32 arg max/min rows and column sums run the
// kernels of cpu/reduce_kernels.h instead (Note [Float32 reduction kernels]).
#include "cpu/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "core/errors.h"
#include "core/scalar.h"
#include "cpu/elementwise.h"
#include "cpu/half_simd.h"
#include "cpu/parallel.h"
#include "cpu/reduce_kernels.h"
#include "cpu/vector_math.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace genesis::cpu {

namespace {

constexpr int kLanes = 8;
constexpr int64_t kColumnBlock = 2048;  // outputs per column block: long sequential row reads

// Which reductions the float32 kernels take over.
template <typename Red, typename T>
constexpr bool kFloatArg =
    std::is_same_v<T, float> && (std::is_same_v<Red, ops::ArgReducer<float, true>> ||
                                 std::is_same_v<Red, ops::ArgReducer<float, false>>);
template <typename Red, typename T>
constexpr bool kFloatExtreme =
    std::is_same_v<T, float> && (std::is_same_v<Red, ops::ExtremeReducer<float, true>> ||
                                 std::is_same_v<Red, ops::ExtremeReducer<float, false>>);
template <typename Red, typename T>
constexpr bool kFloatSum = std::is_same_v<T, float> && std::is_same_v<Red, ops::SumReducer<double>>;
template <typename Red, typename T>
constexpr bool kFloatSquares =
    std::is_same_v<T, float> && std::is_same_v<Red, ops::SumSquaresReducer<double>>;

template <typename Red, typename T>
struct Reduction {
  static constexpr bool kSumExp = std::is_same_v<Red, ops::SumExpReducer<double>>;
  using C = compute_t<T>;
  using Acc = typename Red::Acc;
  const T* in;
  T* out;
  int64_t* index;
  const T* center;
  ops::ReduceShape s;
  ops::ReduceFinish finish;

  C value(int64_t flat, int64_t j) const {
    C v = cast_value<C>(in[flat]);
    if constexpr (std::is_floating_point_v<C>)
      if (center != nullptr) v = v - cast_value<C>(center[j]);
    return v;
  }

  // Elements [begin, end) of row j (inner == 1).
  Acc row(int64_t j, int64_t begin, int64_t end) const {
    if constexpr (kFloatArg<Red, T> || kFloatExtreme<Red, T>) {
      // The extreme is the element at the arg kernel's index: the first of equal values.
      if (begin == end) return Red::identity();
      const float* x = in + j * s.reduce;
      constexpr bool kMax = std::is_same_v<Red, ops::ArgReducer<float, true>> ||
                            std::is_same_v<Red, ops::ExtremeReducer<float, true>>;
      int64_t k = begin + arg_extreme_f32(x + begin, end - begin, kMax);
      if constexpr (kFloatArg<Red, T>)
        return {x[k], k};
      else
        return x[k];
    }
    if constexpr (kSixteenBitFloat<T>) return row_through_floats(j, begin, end);
    if constexpr (kSumExp && std::is_same_v<T, float>)
      if (exp_f32_simd(nullptr, nullptr, 0)) return row_through_floats(j, begin, end);
    if constexpr (kFloatSum<Red, T>) {
      if (center == nullptr) {  // the same lanes in the target's vector registers
        static_assert(kLanes == kRowLanes);
        double lanes[kLanes];
        row_sum_f32(in + j * s.reduce + begin, end - begin, lanes);
        double acc = lanes[0];
        for (int e = 1; e < kLanes; ++e) acc = Red::combine(acc, lanes[e]);
        return acc;
      }
    }
    if constexpr (kFloatSquares<Red, T>) {
      double lanes[kLanes];
      row_sum_squares_f32(in + j * s.reduce + begin, end - begin,
                          center != nullptr ? center[j] : 0.0f, lanes);
      double acc = lanes[0];
      for (int e = 1; e < kLanes; ++e) acc = Red::combine(acc, lanes[e]);
      return acc;
    }
    Acc lanes[kLanes];
    for (auto& l : lanes) l = Red::identity();
    const int64_t base = j * s.reduce;
    int64_t k = begin;
    for (; k + kLanes <= end; k += kLanes)
      for (int e = 0; e < kLanes; ++e)
        lanes[e] = Red::combine(lanes[e], Red::load(value(base + k + e, j), k + e));
    for (; k < end; ++k) lanes[0] = Red::combine(lanes[0], Red::load(value(base + k, j), k));
    Acc acc = lanes[0];
    for (int e = 1; e < kLanes; ++e) acc = Red::combine(acc, lanes[e]);
    return acc;
  }

  // row() of 16-bit floats (and of float32 for logsumexp's exp pass): blocks widened to float
  // with the CPU's conversions first (cpu/half_simd.h), then the same lanes in the same order, so
  // the result is row()'s, bit for bit (checked against the element-wise loop on 2^24 values,
  // with and without NaNs), without converting one element at a time. 2-core VM, 2^24 items:
  // norm() and sum() of float16 8-14 ms -> 1.3 ms (torch 5.1 ms for norm), of bfloat16 2.3 ->
  // 1.4 ms; with the centre (logsumexp's exp pass, var's second), logsumexp of 16384 float16
  // rows of 1024 47 -> 21 ms.
  //
  // Note [Vector exp in logsumexp]: in the exp pass of logsumexp (SumExp) over float32 and
  // 16-bit rows, each centred block goes through the vector exp (cpu/vector_math.h, the values
  // genesis.exp gives) before the lanes add it, instead of one expf per item
  // (benchmarks/results/2026-11-28-session11-cpu-logsumexp.txt).
  Acc row_through_floats(int64_t j, int64_t begin, int64_t end) const {
    constexpr int64_t kBlock = 128 * kLanes;
    constexpr bool kBFloat16 = std::is_same_v<T, BFloat16>;
    alignas(64) float block[kBlock];
    const float centre = center != nullptr ? cast_value<float>(center[j]) : 0.0f;
    bool vector_exp = false;
    if constexpr (kSumExp) vector_exp = exp_f32_simd(nullptr, nullptr, 0);
    Acc lanes[kLanes];
    for (auto& l : lanes) l = Red::identity();
    for (int64_t k = begin; k < end; k += kBlock) {
      const int64_t n = std::min(kBlock, end - k);
      if constexpr (std::is_same_v<T, float>) {
        std::copy(in + j * s.reduce + k, in + j * s.reduce + k + n, block);
      } else {
        const auto* bits = reinterpret_cast<const uint16_t*>(in + j * s.reduce);
        if (!widen_to_float_simd(block, bits + k, n, kBFloat16))
          for (int64_t i = 0; i < n; ++i) block[i] = cast_value<float>(in[j * s.reduce + k + i]);
      }
      if (center != nullptr)  // as value(): the row's centre subtracted in float
        for (int64_t i = 0; i < n; ++i) block[i] = block[i] - centre;
      if constexpr (kSumExp) {
        if (vector_exp) {
          exp_f32_simd(block, block, n);
          add_to_lanes(lanes, block, n);
          continue;
        }
      }
      int64_t i = 0;
      for (; i + kLanes <= n; i += kLanes)
        for (int e = 0; e < kLanes; ++e)
          lanes[e] = Red::combine(lanes[e], Red::load(block[i + e], k + i + e));
      for (; i < n; ++i) lanes[0] = Red::combine(lanes[0], Red::load(block[i], k + i));
    }
    Acc acc = lanes[0];
    for (int e = 1; e < kLanes; ++e) acc = Red::combine(acc, lanes[e]);
    return acc;
  }

  // lanes += block in the lanes' order (values already through the reducer's load).
  static void add_to_lanes(Acc* lanes, const float* block, int64_t n) {
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int e = 0; e < kLanes; ++e) lanes[e] = Red::combine(lanes[e], Acc(block[i + e]));
    for (; i < n; ++i) lanes[0] = Red::combine(lanes[0], Acc(block[i]));
  }

  void store(int64_t j, Acc acc) const {
    if constexpr (std::is_same_v<Acc, ops::ValueIndex<C>>) {
      index[j] = acc.i;
      if (out != nullptr) out[j] = cast_value<T>(acc.v);
    } else {
      if constexpr (std::is_floating_point_v<Acc>) {
        if (finish.divide) acc = acc / static_cast<Acc>(finish.divisor);
        if (finish.sqrt) acc = std::sqrt(acc);
      }
      out[j] = cast_value<T>(acc);
    }
  }

  void run() const {
    const int64_t outputs = s.outputs();
    if (s.inner == 1) {
      const int64_t threads = max_threads();
      if (outputs >= threads || s.reduce < 2 * kDefaultGrain) {
        int64_t grain = std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(s.reduce, 1));
        parallel_for(outputs, grain, [&](int64_t b, int64_t e) {
          for (int64_t j = b; j < e; ++j) store(j, row(j, 0, s.reduce));
        });
        return;
      }
      for (int64_t j = 0; j < outputs; ++j) {  // few long rows: split each over the threads
        int64_t pieces = std::min<int64_t>(threads, s.reduce / kDefaultGrain);
        // Not std::vector: vector<bool> (all/any) packs the pieces' results into shared bytes,
        // and two threads storing their bits would race.
        std::unique_ptr<Acc[]> partial(new Acc[pieces]);
        int64_t per = (s.reduce + pieces - 1) / pieces;
        parallel_for(pieces, 1, [&](int64_t b, int64_t e) {
          for (int64_t p = b; p < e; ++p)
            partial[p] = row(j, p * per, std::min(s.reduce, (p + 1) * per));
        });
        Acc acc = partial[0];
        for (int64_t p = 1; p < pieces; ++p) acc = Red::combine(acc, partial[p]);
        store(j, acc);
      }
      return;
    }
    columns();
  }

  // Columns per block: at most kColumnBlock and, when there are few outer slices, enough blocks
  // of even width for every thread.
  int64_t column_width() const {
    const int64_t threads = max_threads();
    int64_t blocks = (s.inner + kColumnBlock - 1) / kColumnBlock;
    if (s.outer < threads) {
      int64_t per_outer = (threads + s.outer - 1) / s.outer;
      blocks = (blocks + per_outer - 1) / per_outer * per_outer;
    }
    int64_t width = (s.inner + blocks - 1) / blocks;
    return std::max<int64_t>(16, (width + 15) / 16 * 16);
  }

  // The float32 kernels, where they apply; false leaves the block to the generic loop.
  bool float_columns(int64_t o, int64_t i0, int64_t n, Acc* a) const {
    if constexpr (kFloatSum<Red, T>) {
      if (center != nullptr) return false;
      column_sum_f32(in + o * s.reduce * s.inner + i0, s.reduce, s.inner, n, a);
      return true;
    } else if constexpr (kFloatSquares<Red, T>) {
      if (center == nullptr) return false;
      column_sum_squares_f32(in + o * s.reduce * s.inner + i0, s.reduce, s.inner, n,
                             center + o * s.inner + i0, a);
      return true;
    } else if constexpr (kFloatArg<Red, T>) {
      if (s.reduce == 0 || s.reduce > std::numeric_limits<int32_t>::max()) return false;
      column_arg_extreme_f32(in + o * s.reduce * s.inner + i0, s.reduce, s.inner, n,
                             std::is_same_v<Red, ops::ArgReducer<float, true>>, a);
      return true;
    }
    return false;
  }

  // a[i] = the reduction of column i0 + i of outer slice o, i < n.
  void column_block(int64_t o, int64_t i0, int64_t n, Acc* a) const {
    for (int64_t i = 0; i < n; ++i) a[i] = Red::identity();
    accumulate_columns(o, i0, n, a);
  }

  // a[i] combined with the column i0 + i of outer slice o, its rows in order, i < n.
  void accumulate_columns(int64_t o, int64_t i0, int64_t n, Acc* a) const {
    if (float_columns(o, i0, n, a)) return;
    for (int64_t k = 0; k < s.reduce; ++k) {
      int64_t base = (o * s.reduce + k) * s.inner + i0;
      if (center == nullptr) {  // the common case, kept free of the centring so it vectorizes
        const T* row = in + base;
        for (int64_t i = 0; i < n; ++i)
          a[i] = Red::combine(a[i], Red::load(cast_value<C>(row[i]), k));
      } else {
        for (int64_t i = 0; i < n; ++i)
          a[i] = Red::combine(a[i], Red::load(value(base + i, o * s.inner + i0 + i), k));
      }
    }
  }

  void columns() const {
    const int64_t width = std::min(column_width(), s.inner);
    const int64_t blocks_per_outer = (s.inner + width - 1) / width;
    // A block is width * reduce element operations (Note [Serial small work] in parallel.h).
    const int64_t grain =
        std::max<int64_t>(1, kDefaultGrain / std::max<int64_t>(1, width * s.reduce));
    parallel_for(s.outer * blocks_per_outer, grain, [&](int64_t b, int64_t e) {
      // Not std::vector: vector<bool> (all/any) has no data().
      std::unique_ptr<Acc[]> acc(new Acc[width]);
      for (int64_t w = b; w < e; ++w) {
        int64_t o = w / blocks_per_outer, i0 = (w % blocks_per_outer) * width;
        int64_t n = std::min(width, s.inner - i0);
        column_block(o, i0, n, acc.get());
        for (int64_t i = 0; i < n; ++i) store(o * s.inner + i0 + i, acc[i]);
      }
    });
  }
};

// Accumulators: double for every float type (the CPU has the headroom), int64 for integers.
template <typename T>
using wide_t = std::conditional_t<std::is_floating_point_v<compute_t<T>>, double, int64_t>;

template <typename Red, typename T>
void run(const Tensor& in, const ops::ReduceShape& shape, const Tensor& out, const Tensor& index,
         const Tensor& center, const ops::ReduceFinish& finish) {
  Reduction<Red, T>{in.data_as<T>(),
                    out.defined() ? out.mutable_data_as<T>() : nullptr,
                    index.defined() ? index.mutable_data_as<int64_t>() : nullptr,
                    center.defined() ? center.data_as<T>() : nullptr,
                    shape,
                    finish}
      .run();
}

// body.template operator()<Red, T>() for the reducer of `op` over items of `dtype`.
template <typename Body>
void with_reducer(ops::ReduceOp op, ScalarType dtype, const Body& body) {
  using ops::ReduceOp;
  GENESIS_DISPATCH_ALL_TYPES(dtype, "reduce", [&] {
    using T = scalar_t;
    using C = compute_t<T>;
    using W = wide_t<T>;
    switch (op) {
      case ReduceOp::Sum:
        return body.template operator()<ops::SumReducer<W>, T>();
      case ReduceOp::Prod:
        return body.template operator()<ops::ProdReducer<W>, T>();
      case ReduceOp::SumSquares:
        return body.template operator()<ops::SumSquaresReducer<double>, T>();
      case ReduceOp::SumExp:
        if constexpr (std::is_floating_point_v<C>)
          return body.template operator()<ops::SumExpReducer<double>, T>();
        else
          GENESIS_FAIL(ErrorKind::Type, "logsumexp", "expected a floating point tensor");
      case ReduceOp::Max:
        return body.template operator()<ops::ExtremeReducer<C, true>, T>();
      case ReduceOp::Min:
        return body.template operator()<ops::ExtremeReducer<C, false>, T>();
      case ReduceOp::ArgMax:
        return body.template operator()<ops::ArgReducer<C, true>, T>();
      case ReduceOp::ArgMin:
        return body.template operator()<ops::ArgReducer<C, false>, T>();
      case ReduceOp::All:
        return body.template operator()<ops::LogicalReducer<true>, T>();
      case ReduceOp::Any:
        return body.template operator()<ops::LogicalReducer<false>, T>();
      case ReduceOp::MinMax:
        GENESIS_FAIL(ErrorKind::Value, "reduce", "aminmax runs in cpu/min_max.h");
    }
  });
}

}  // namespace

void reduce(ops::ReduceOp op, const Tensor& in, const ops::ReduceShape& shape, const Tensor& out,
            const Tensor& index, const Tensor& center, const ops::ReduceFinish& finish) {
  if (shape.outputs() == 0) return;
  with_reducer(op, in.dtype(), [&]<typename Red, typename T>() {
    run<Red, T>(in, shape, out, index, center, finish);
  });
}

bool reduce_runs_whole_rows(int64_t rows, int64_t row_size) {
  return rows >= max_threads() || row_size < 2 * kDefaultGrain;
}

void reduce_rows(ops::ReduceOp op, ScalarType dtype, const void* in, int64_t rows, int64_t row_size,
                 void* out, const ops::ReduceFinish& finish, const void* center) {
  with_reducer(op, dtype, [&]<typename Red, typename T>() {
    if constexpr (std::is_same_v<typename Red::Acc, ops::ValueIndex<compute_t<T>>>) {
      GENESIS_FAIL(ErrorKind::Value, "reduce", "reduce_rows has no index output");
    } else {
      const Reduction<Red, T> r{static_cast<const T*>(in),     static_cast<T*>(out), nullptr,
                                static_cast<const T*>(center), {rows, row_size, 1},  finish};
      for (int64_t j = 0; j < rows; ++j) r.store(j, r.row(j, 0, row_size));
    }
  });
}

namespace {

// Note [Column reductions in pieces]: a fused column group (fusion/cpu_executor.cpp) computes
// the reduced value a few rows at a time and hands each piece here; the accumulators are the
// column loop's own (Reduction::accumulate_columns), fed the rows in order, and a float32 sum's
// pieces of kColumnSumRows rows from row 0 are the runs its kernel sums in float, so the
// result is reduce()'s, bit for bit.
template <typename Body>
void with_column_reducer(ops::ReduceOp op, ScalarType dtype, const Body& body) {
  with_reducer(op, dtype, [&]<typename Red, typename T>() {
    if constexpr (std::is_same_v<typename Red::Acc, ops::ValueIndex<compute_t<T>>> ||
                  std::is_same_v<typename Red::Acc, bool>) {
      GENESIS_FAIL(ErrorKind::Value, "reduce", "no column pieces for this reduction");
    } else {
      body.template operator()<Red, T>();
    }
  });
}

}  // namespace

int64_t column_piece_rows() { return kColumnSumRows; }

size_t column_accumulator_size(ops::ReduceOp op, ScalarType dtype) {
  size_t size = 0;
  with_column_reducer(op, dtype,
                      [&]<typename Red, typename T>() { size = sizeof(typename Red::Acc); });
  return size;
}

void begin_columns(ops::ReduceOp op, ScalarType dtype, int64_t n, void* acc) {
  with_column_reducer(op, dtype, [&]<typename Red, typename T>() {
    auto* a = static_cast<typename Red::Acc*>(acc);
    for (int64_t i = 0; i < n; ++i) a[i] = Red::identity();
  });
}

void accumulate_columns(ops::ReduceOp op, ScalarType dtype, const void* rows, int64_t count,
                        int64_t n, void* acc) {
  with_column_reducer(op, dtype, [&]<typename Red, typename T>() {
    const Reduction<Red, T> r{
        static_cast<const T*>(rows), nullptr, nullptr, nullptr, {1, count, n}, {}};
    r.accumulate_columns(0, 0, n, static_cast<typename Red::Acc*>(acc));
  });
}

void store_columns(ops::ReduceOp op, ScalarType dtype, const void* acc, int64_t n, void* out,
                   const ops::ReduceFinish& finish) {
  with_column_reducer(op, dtype, [&]<typename Red, typename T>() {
    const Reduction<Red, T> r{nullptr, static_cast<T*>(out), nullptr, nullptr, {1, 1, n}, finish};
    const auto* a = static_cast<const typename Red::Acc*>(acc);
    for (int64_t i = 0; i < n; ++i) r.store(i, a[i]);
  });
}

}  // namespace genesis::cpu

// Note [Fused groups on the CPU]: a group runs a chunk of kChunk items at a time, each op over
// the whole chunk before the next (the eager loops' contiguous runs, cpu/elementwise.h), so each
// op's values stay in the core's cache between ops and go to memory only when a result is held.
// Inputs that are not dense (broadcast or strided views) are gathered into the chunk first. The
// chunks are shared among the threads. Every op reads dense runs here, where eager code may
// take a strided loop; the arithmetic is the same functor, but an op with a vector routine
// (exp, tanh, erf) may then differ from eager's strided loop in the last bit. A row group (Note
// [Row groups] in group.h) goes a block of whole rows at a time: its full ops over the block's
// items, each reduction row by row through eager's whole-row loop, row ops over one item a row;
// a full binary op reading a row value (x - max, e / sum) runs row by row with that row's value
// as its number, as eager's loop reads a broadcast side (softmax of plain ops, 4096 x 1024
// float32 on 2 cores: 2.2 ms instead of 3.4-3.8 with the value repeated along its rows first,
// eager 2.8), and a row value that other full ops read is repeated along its rows into a block
// of scratch first.
// A column group (Note [Column groups] in group.h) goes a block of columns at a time instead
// (run_column_group).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "cpu/copy.h"
#include "cpu/dropout.h"
#include "cpu/elementwise.h"
#include "cpu/parallel.h"
#include "cpu/reduce.h"
#include "fusion/graph.h"

namespace genesis::fusion {

namespace {

constexpr int64_t kChunk = 2048;

// dst[k] = src[k * step] for k < run, items of type W (step 0: one value repeated).
template <typename W>
void strided_run(char* dst, const char* src, int64_t step, int64_t run) {
  W* out = reinterpret_cast<W*>(dst);
  const W* in = reinterpret_cast<const W*>(src);
  if (step == 0) {
    const W v = *in;
    for (int64_t k = 0; k < run; ++k) out[k] = v;
  } else {
    for (int64_t k = 0; k < run; ++k) out[k] = in[k * step];
  }
}

// strided_run of items of `item` bytes (step 1: a copy).
void run_of(char* out, const char* in, int64_t step, int64_t run, int64_t item) {
  if (step == 1) return void(std::memcpy(out, in, static_cast<size_t>(run * item)));
  switch (item) {
    case 1:
      return strided_run<uint8_t>(out, in, step, run);
    case 2:
      return strided_run<uint16_t>(out, in, step, run);
    case 4:
      return strided_run<uint32_t>(out, in, step, run);
    default:
      return strided_run<uint64_t>(out, in, step, run);
  }
}

// Copies items [begin, begin + n) of view t (in row-major order of its sizes) to dst.
void gather(char* dst, const Tensor& t, int64_t begin, int64_t n) {
  const auto item = static_cast<int64_t>(t.itemsize());
  const char* base = static_cast<const char*>(t.storage().data()) + t.storage_offset() * item;
  const Shape& sizes = t.sizes();
  const Shape& strides = t.strides();
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if (nd == 0) return run_of(dst, base, 0, n, item);
  // The multi-index of `begin`; then runs along the innermost dim, stepping the outer dims with
  // carries between runs.
  Shape index(sizes.size());
  int64_t rest = begin, offset = 0;
  for (int64_t d = nd - 1; d >= 0; --d) {
    index[d] = rest % sizes[d];
    rest /= sizes[d];
    offset += index[d] * strides[d];
  }
  const int64_t last = nd - 1, inner = sizes[last], step = strides[last];
  for (int64_t i = 0; i < n;) {
    const int64_t run = std::min(inner - index[last], n - i);
    run_of(dst + i * item, base + offset * item, step, run, item);
    i += run;
    offset += run * step;
    index[last] += run;
    for (int64_t d = last; d > 0 && index[d] == sizes[d]; --d) {  // carry into the outer dims
      offset -= sizes[d] * strides[d];
      index[d] = 0;
      offset += strides[d - 1];
      ++index[d - 1];
    }
  }
}

bool dense(const Tensor& t) { return t.is_contiguous(); }

// The value at p, of dtype t, as an op's number: a row value read by a full binary op, as
// eager's loop reads a broadcast operand (one value for the row's run).
ops::ScalarArg number_at(const char* p, ScalarType t) {
  ops::ScalarArg s;
  s.is_scalar = true;
  GENESIS_DISPATCH_ALL_TYPES(t, "compile", [&] {
    using C = cpu::compute_t<scalar_t>;
    const C v = static_cast<C>(*reinterpret_cast<const scalar_t*>(p));
    if constexpr (std::is_floating_point_v<C>) {
      s.is_float = true;
      s.d = static_cast<double>(v);
    } else {
      s.i = static_cast<int64_t>(v);
    }
  });
  return s;
}

// Op k (not a Reduce) over n items from item `start`, into out, its operands at a, b, cond.
void run_elementwise(const FusedOp& op, int64_t item, char* out, const void* a, const void* b,
                     const void* cond, int64_t start, int64_t n) {
  switch (op.kind) {
    case OpKind::Unary:
      cpu::unary_run(static_cast<ops::UnaryOp>(op.code), op.out, out, a, n, op.strided_read);
      break;
    case OpKind::Binary:
      cpu::binary_run(static_cast<ops::BinaryOp>(op.code), op.compute, out, a, op.sa, b, op.sb, n);
      break;
    case OpKind::Cast:
      cpu::cast_run(op.out, op.compute, out, a, n);
      break;
    case OpKind::Where:
      cpu::where_run(static_cast<int>(item), out, static_cast<const bool*>(cond), a, op.a_bits, b,
                     op.b_bits, n);
      break;
    case OpKind::DropoutMask:
      cpu::dropout_mask_run(reinterpret_cast<bool*>(out), start, n, static_cast<float>(op.sa.d),
                            op.a_bits, op.b_bits);
      break;
    case OpKind::Reduce:
      break;
  }
}

// Note [Column groups] (group.h): each thread takes blocks of columns; a block walks its rows
// in pieces of cpu::column_piece_rows(), computing every full op over the block's items of one
// row at a time (a dense run of the block's width) and keeping each column reduction's operand
// for the piece's rows, which then go to the column loop's accumulators (Note [Column
// reductions in pieces] in cpu/reduce.cpp). The widths of the blocks do not change a column's
// sum: each column adds its rows in order.
void run_column_group(const Graph& graph, const Results& results) {
  const size_t n_ops = graph.ops.size(), n_inputs = graph.inputs.size();
  const int64_t columns = graph.columns, rows = graph.numel / columns;
  const int64_t piece = cpu::column_piece_rows();
  const int64_t threads = cpu::max_threads();
  int64_t width = std::min<int64_t>(kChunk, (columns + threads - 1) / threads);
  width = std::min(columns, std::max<int64_t>(64, (width + 15) / 16 * 16));
  const int64_t blocks = (columns + width - 1) / width;
  std::vector<const char*> input_base(n_inputs);
  std::vector<int64_t> input_item(n_inputs);
  for (size_t i = 0; i < n_inputs; ++i) {
    const Tensor& t = graph.inputs[i];
    input_item[i] = static_cast<int64_t>(t.itemsize());
    input_base[i] =
        dense(t) ? static_cast<const char*>(t.storage().data()) + t.storage_offset() * input_item[i]
                 : nullptr;
  }
  std::vector<char*> result_base(n_ops, nullptr);
  std::vector<int64_t> result_item(n_ops);
  for (size_t k = 0; k < n_ops; ++k) {
    result_item[k] = static_cast<int64_t>(itemsize(graph.ops[k].out));
    if (results.held[k]) result_base[k] = static_cast<char*>(results.held[k]->result_data());
  }
  cpu::parallel_for(blocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<std::vector<char>> scratch(n_ops), input_scratch(n_inputs), tile(n_ops), acc(n_ops);
    for (size_t k = 0; k < n_ops; ++k) {
      const FusedOp& op = graph.ops[k];
      if (op.column) {
        tile[k].resize(static_cast<size_t>(piece * width * itemsize(op.compute)));
        acc[k].resize(
            static_cast<size_t>(width) *
            cpu::column_accumulator_size(static_cast<ops::ReduceOp>(op.code), op.compute));
      } else if (!result_base[k]) {
        scratch[k].resize(static_cast<size_t>(width * result_item[k]));
      }
    }
    for (size_t i = 0; i < n_inputs; ++i)
      if (!input_base[i]) input_scratch[i].resize(static_cast<size_t>(width * input_item[i]));
    std::vector<const char*> input_at(n_inputs);
    std::vector<char*> op_at(n_ops);
    auto at = [&](const Ref& r) -> const void* {
      if (r.is_number()) return nullptr;
      return r.is_op ? op_at[r.index] : input_at[r.index];
    };
    for (int64_t block = begin; block < end; ++block) {
      const int64_t c0 = block * width, w = std::min(width, columns - c0);
      for (size_t k = 0; k < n_ops; ++k)
        if (graph.ops[k].column)
          cpu::begin_columns(static_cast<ops::ReduceOp>(graph.ops[k].code), graph.ops[k].compute, w,
                             acc[k].data());
      for (int64_t r0 = 0; r0 < rows; r0 += piece) {
        const int64_t r1 = std::min(rows, r0 + piece);
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t start = r * columns + c0;
          for (size_t i = 0; i < n_inputs; ++i) {
            if (input_base[i]) {
              input_at[i] = input_base[i] + start * input_item[i];
            } else {
              gather(input_scratch[i].data(), graph.inputs[i], start, w);
              input_at[i] = input_scratch[i].data();
            }
          }
          for (size_t k = 0; k < n_ops; ++k) {
            const FusedOp& op = graph.ops[k];
            if (op.column) {  // this row's operand values, kept for the piece
              const auto item = static_cast<int64_t>(itemsize(op.compute));
              std::memcpy(tile[k].data() + (r - r0) * w * item, at(op.a),
                          static_cast<size_t>(w * item));
              continue;
            }
            op_at[k] = result_base[k] ? result_base[k] + start * result_item[k] : scratch[k].data();
            run_elementwise(op, result_item[k], op_at[k], at(op.a), at(op.b), at(op.cond), start,
                            w);
          }
        }
        for (size_t k = 0; k < n_ops; ++k)
          if (graph.ops[k].column)
            cpu::accumulate_columns(static_cast<ops::ReduceOp>(graph.ops[k].code),
                                    graph.ops[k].compute, tile[k].data(), r1 - r0, w,
                                    acc[k].data());
      }
      for (size_t k = 0; k < n_ops; ++k)
        if (graph.ops[k].column && result_base[k])
          cpu::store_columns(static_cast<ops::ReduceOp>(graph.ops[k].code), graph.ops[k].compute,
                             acc[k].data(), w, result_base[k] + c0 * result_item[k],
                             graph.ops[k].finish);
    }
  });
}

}  // namespace

void run_on_cpu(const Graph& graph, const Results& results) {
  if (graph.columns > 0) return run_column_group(graph, results);
  const size_t n_ops = graph.ops.size(), n_inputs = graph.inputs.size();
  // The work goes in units: an item of the shape, or a row of a row group (Note [Row groups]).
  // A full value has `unit` items a unit, a row value one; a block is the units done together.
  const bool rows = graph.rows > 0;
  const int64_t unit = rows ? graph.row_size : 1, units = rows ? graph.rows : graph.numel;
  const int64_t block = rows ? std::max<int64_t>(1, kChunk / unit) : kChunk;
  auto per_unit = [&](bool row) { return row ? int64_t{1} : unit; };
  // Where each input and held result lives, and the item sizes.
  std::vector<const char*> input_base(n_inputs);
  std::vector<int64_t> input_item(n_inputs);
  std::vector<bool> input_dense(n_inputs), input_row(n_inputs);
  for (size_t i = 0; i < n_inputs; ++i) {
    const Tensor& t = graph.inputs[i];
    input_item[i] = static_cast<int64_t>(t.itemsize());
    input_dense[i] = dense(t);
    input_row[i] = rows && t.numel() == graph.rows;
    input_base[i] =
        static_cast<const char*>(t.storage().data()) + t.storage_offset() * input_item[i];
  }
  std::vector<char*> result_base(n_ops, nullptr);
  std::vector<int64_t> result_item(n_ops);
  std::vector<bool> broadcast(n_ops);  // row values that full ops read
  for (size_t k = 0; k < n_ops; ++k) {
    const FusedOp& op = graph.ops[k];
    result_item[k] = static_cast<int64_t>(itemsize(op.out));
    if (results.held[k]) result_base[k] = static_cast<char*>(results.held[k]->result_data());
    if (op.row && op.kind != OpKind::Reduce) continue;
    if (op.kind == OpKind::Binary) continue;  // reads row values as numbers, a row at a time
    for (const Ref* r : {&op.a, &op.b, &op.cond})
      if (r->is_op && graph.ops[r->index].row && !(op.kind == OpKind::Reduce && r == &op.b))
        broadcast[r->index] = true;  // a reduction reads its centre (b) at row level
  }
  const int64_t grain = std::max<int64_t>(1, 4 * kChunk / unit);
  cpu::parallel_for(units, grain, [&](int64_t begin, int64_t end) {
    // Scratch for this thread: a block per op that is not written out, per gathered input and
    // per row value that full ops read broadcast.
    std::vector<std::vector<char>> op_scratch(n_ops), input_scratch(n_inputs), expanded(n_ops);
    for (size_t k = 0; k < n_ops; ++k) {
      const int64_t items = block * per_unit(graph.ops[k].row);
      if (!result_base[k]) op_scratch[k].resize(static_cast<size_t>(items * result_item[k]));
      if (broadcast[k]) expanded[k].resize(static_cast<size_t>(block * unit * result_item[k]));
    }
    for (size_t i = 0; i < n_inputs; ++i)
      if (!input_dense[i])
        input_scratch[i].resize(
            static_cast<size_t>(block * per_unit(input_row[i]) * input_item[i]));
    std::vector<const char*> input_at(n_inputs);
    std::vector<char*> op_at(n_ops);
    for (int64_t start = begin; start < end; start += block) {
      const int64_t n_units = std::min(block, end - start);
      for (size_t i = 0; i < n_inputs; ++i) {
        const int64_t u = per_unit(input_row[i]);
        if (input_dense[i]) {
          input_at[i] = input_base[i] + start * u * input_item[i];
        } else {
          gather(input_scratch[i].data(), graph.inputs[i], start * u, n_units * u);
          input_at[i] = input_scratch[i].data();
        }
      }
      // An operand as an op at `row` level reads it: a row value read by a full op broadcast.
      auto at = [&](const Ref& r, bool row) -> const void* {
        if (r.is_number()) return nullptr;
        if (!r.is_op) return input_at[r.index];
        return graph.ops[r.index].row && !row ? expanded[r.index].data() : op_at[r.index];
      };
      auto reads_row = [&](const Ref& r) { return r.is_op && graph.ops[r.index].row; };
      // A full binary op with a row operand (x - max, e / sum): each row's run with that row's
      // value as the op's number, as eager's loop reads a broadcast side, instead of the value
      // repeated along the row first.
      auto binary_by_rows = [&](const FusedOp& op, int64_t item, char* out, const void* a,
                                const void* b, int64_t n_rows) {
        const bool row_a = reads_row(op.a), row_b = reads_row(op.b);
        const auto compute_item = static_cast<int64_t>(itemsize(op.compute));
        for (int64_t j = 0; j < n_rows; ++j) {
          auto side = [&](const void* p, bool row_value, const ops::ScalarArg& number,
                          ops::ScalarArg& arg) -> const void* {
            arg = number;
            if (!p) return nullptr;
            if (!row_value) return static_cast<const char*>(p) + j * unit * compute_item;
            arg = number_at(static_cast<const char*>(p) + j * compute_item, op.compute);
            return nullptr;
          };
          ops::ScalarArg sa, sb;
          const void* pa = side(a, row_a, op.sa, sa);
          const void* pb = side(b, row_b, op.sb, sb);
          cpu::binary_run(static_cast<ops::BinaryOp>(op.code), op.compute, out + j * unit * item,
                          pa, sa, pb, sb, unit);
        }
      };
      for (size_t k = 0; k < n_ops; ++k) {
        const FusedOp& op = graph.ops[k];
        const int64_t u = per_unit(op.row), n = n_units * u;
        op_at[k] =
            result_base[k] ? result_base[k] + start * u * result_item[k] : op_scratch[k].data();
        if (op.kind == OpKind::Reduce)  // each of the block's rows of a full value
          cpu::reduce_rows(static_cast<ops::ReduceOp>(op.code), op.compute, at(op.a, false),
                           n_units, unit, op_at[k], op.finish, at(op.b, true));
        else if (op.kind == OpKind::Binary && !op.row && (reads_row(op.a) || reads_row(op.b)))
          binary_by_rows(op, result_item[k], op_at[k], at(op.a, true), at(op.b, true), n_units);
        else
          run_elementwise(op, result_item[k], op_at[k], at(op.a, op.row), at(op.b, op.row),
                          at(op.cond, op.row), start * u, n);
        if (broadcast[k])  // the block's rows of this row value, each repeated along its row
          for (int64_t j = 0; j < n_units; ++j)
            run_of(expanded[k].data() + j * unit * result_item[k], op_at[k] + j * result_item[k], 0,
                   unit, result_item[k]);
      }
    }
  });
}

}  // namespace genesis::fusion

// Note [Fused column groups on CUDA]: a column group (Note [Column groups] in group.h) becomes a
// program of two kernels that reduce as eager's CUDA column reduction does (Note [CUDA
// reductions] in kernels/reduce_loops.cuh), so the results keep eager's bits. The first takes a
// thread per column (neighbouring threads, neighbouring columns: coalesced) and a chunk of rows
// per blockIdx.y, split as eager splits them (column_chunks, the plan of kernels/reduce_sum.cu);
// for each of its rows in order it computes the group's full ops at the item from the inputs,
// stores the written ones, and folds each column reduction's operand into its accumulator with
// the eager reducer's combine, from the reducer's identity. With one chunk it stores the finished
// results (mean's division in the accumulator's type, then the conversion); otherwise it stores
// its partials, and a second kernel folds each column's partials from the identity and stores
// the results as eager's final kernel does: <name>_partials in chunk order, a thread a column, or,
// with at most 1024 columns and at least 64 chunks, <name>_partials_block, a block a column, its
// threads each folding every 256th partial, then the block's tree (kColumnPrelude). The partials of
// column reduction q live in an 8-byte slot per (chunk, column) of a workspace from the caching
// pool: q * chunks * columns slots on (cuda_executor.cpp).
#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "fusion/cuda_source.h"

namespace genesis::fusion {

namespace {

std::string name_of(const Ref& r) { return str_cat(r.is_op ? "v" : "x", r.index); }

// Eager's block reduction of the final kernel that takes a block a column (kernels/
// reduce_loops.cuh's block_reduce, the same tree): shuffles down within each warp, then warp 0
// folds the 8 warps' values; thread 0 holds the result.
constexpr const char* kColumnPrelude = R"genesis_src(
template <typename A, typename Op>
__device__ __forceinline__ A g_tree_reduce(A v, Op op, A identity, unsigned long long* shm) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, d));
  A* part = reinterpret_cast<A*>(shm);
  __syncthreads();  // the previous reduction's readers are done with part
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 8 ? part[threadIdx.x] : identity;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, d));
  }
  return v;
}
)genesis_src";

}  // namespace

ColumnChunks column_chunks(int64_t rows, int64_t columns, int multiprocessors) {
  // kernels/reduce_sum.cu's plan_reduce for inner > 1: two waves of full multiprocessors, each
  // chunk at least 64 rows, whole multiples of 16 rows
  int64_t chunks = 1;
  const int64_t target = static_cast<int64_t>(multiprocessors) * 4096;
  if (columns < target) chunks = std::min((target + columns - 1) / columns, rows / 64);
  chunks = std::max<int64_t>(1, std::min<int64_t>(chunks, 65535));
  int64_t each = (rows + chunks - 1) / chunks;
  each = std::max<int64_t>(16, (each + 15) / 16 * 16);
  ColumnChunks c;
  c.chunks = std::max<int64_t>(1, (rows + each - 1) / each);
  c.rows_each = c.chunks == 1 ? std::max<int64_t>(rows, 1) : each;
  return c;
}

int column_lead(const Graph& graph) {
  int lead = static_cast<int>(graph.shape.size());
  int64_t items = 1;
  while (lead > 0 && items < graph.columns) items *= graph.shape[--lead];
  GENESIS_CHECK(items == graph.columns, "compile", "a column group's ", graph.columns,
                " columns are not its shape's trailing dims");
  return lead;
}

KernelSource cuda_column_source(const Graph& graph, const KernelShape& shape) {
  const char* idx = shape.index32 ? "int" : "long long";
  const size_t n_ops = graph.ops.size(), n_inputs = graph.inputs.size();
  std::string key = str_cat("cols1;", idx, ";rank", shape.rank, ";");
  for (size_t i = 0; i < n_inputs; ++i)
    key += str_cat("in:", text::storage_type(graph.inputs[i].dtype()),
                   shape.column[i]    ? "/c"
                   : shape.strided[i] ? "/s"
                                      : "",
                   ";");

  // Strided inputs (Note [Strided reads in row programs], the other way round): the column's
  // part of the offset once a thread, from c over the trailing dims; the row's from r over the
  // leading ones (one multiply when there is one).
  //
  // Note [Inputs the same in every row of a column group]: an input whose strides over the rows'
  // dims are 0 (a bias broadcast over the rows, as in a GELU + bias backward whose bias gradient
  // is the column sum) is read once a thread, at its column's offset, before the rows: walking
  // the rows' dims for it cost two integer divisions a dim a row (a GELU + bias backward over
  // 8x1024x3072 bf16 took 231 us on an H100, four times its memory's time).
  std::string column_offsets;
  std::string loop =
      str_cat("  for (", idx, " r = begin; r < end; ++r) {\n    const ", idx, " i = r * C + c;\n");
  std::vector<bool> along_rows(n_inputs);  // strided inputs that differ from row to row
  for (size_t i = 0; i < n_inputs; ++i) along_rows[i] = shape.strided[i] && !shape.column[i];
  if (shape.any_strided()) {
    const int lead = column_lead(graph);
    key += str_cat("lead", lead, ";");
    column_offsets =
        text::walk_dims(shape.strided, idx, "col_rest", "c", shape.rank - 1, lead, "b", "", "  ");
    for (size_t i = 0; i < n_inputs; ++i)
      if (shape.column[i])
        column_offsets += str_cat("  const ", text::storage_type(graph.inputs[i].dtype()), " x", i,
                                  " = in", i, "[b", i, "];\n");
    if (lead <= 1) {
      for (size_t i = 0; i < n_inputs; ++i)
        if (along_rows[i])
          loop += str_cat("    const ", idx, " o", i, " = b", i,
                          lead == 1 ? str_cat(" + r * g.strides", i, "[0]") : std::string(), ";\n");
    } else if (std::find(along_rows.begin(), along_rows.end(), true) != along_rows.end()) {
      loop += text::walk_dims(along_rows, idx, "rest", "r", lead - 1, 0, "o", "b", "    ");
    }
  }
  for (size_t i = 0; i < n_inputs; ++i)
    if (!shape.column[i])
      loop += str_cat("    const ", text::storage_type(graph.inputs[i].dtype()), " x", i, " = in",
                      i, shape.strided[i] ? str_cat("[o", i, "]") : std::string("[i]"), ";\n");
  // Per written column reduction: its accumulator, how it starts, how it finishes.
  std::string start, stage, partials, block_partials, finish;
  int q = 0;
  for (size_t k = 0; k < n_ops; ++k) {
    const FusedOp& op = graph.ops[k];
    if (!op.column) {
      const std::string expr = text::op_expression(op, k);
      loop += str_cat("    const ", text::storage_type(op.out), " v", k, " = ", expr, ";\n");
      if (shape.written[k]) loop += str_cat("    out", k, "[i] = v", k, ";\n");
      key += str_cat(k, "=", expr, shape.written[k] ? "/w" : "", ";");
      continue;
    }
    if (!shape.written[k]) continue;  // nobody holds it
    const text::Accumulator acc = text::accumulator(op);
    std::string finished = str_cat("acc", k);
    if (op.finish.divide)
      finished = str_cat("(acc", k, " / static_cast<", acc.type, ">(",
                         text::double_literal(op.finish.divisor), "))");
    if (op.finish.sqrt) finished = str_cat("gm::m_sqrt(", finished, ")");
    const std::string store =
        str_cat("out", k, "[c] = g_convert<", text::storage_type(op.out), ">(", finished, ");\n");
    const std::string slots = str_cat("reinterpret_cast<", acc.type, "*>(ws + static_cast<", idx,
                                      ">(", q, ") * chunks * C)");
    start += str_cat("  ", acc.type, " acc", k, " = ", acc.identity, ";\n");
    loop += str_cat("    acc", k, " = ", acc.combine, "{}(acc", k, ", g_convert<", acc.type, ">(",
                    name_of(op.a), "));\n");
    stage += str_cat("    ", slots, "[static_cast<", idx, ">(blockIdx.y) * C + c] = acc", k, ";\n");
    partials += str_cat("  {\n    ", acc.type, " acc", k, " = ", acc.identity, ";\n    for (", idx,
                        " h = 0; h < chunks; ++h) acc", k, " = ", acc.combine, "{}(acc", k, ", ",
                        slots, "[h * C + c]);\n    ", store, "  }\n");
    finish += "    " + store;
    block_partials += str_cat(
        "  {\n    ", acc.type, " acc", k, " = ", acc.identity, ";\n    for (", idx,
        " h = threadIdx.x; h < chunks; h += ", kColumnThreads, ") acc", k, " = ", acc.combine,
        "{}(acc", k, ", ", slots, "[h * C + c]);\n    acc", k, " = g_tree_reduce(acc", k, ", ",
        acc.combine, "{}, ", acc.identity, ", g_shm);\n    if (threadIdx.x == 0) ", store, "  }\n");
    key += str_cat(k, "=col:", acc.combine, "(", name_of(op.a), ")", finished, "/w;");
    ++q;
  }
  loop += "  }\n";

  KernelSource src;
  src.key = key;
  src.name = text::kernel_name(key);
  std::string params = text::group_params(graph, shape, idx);
  const std::string geo = text::geo_struct(graph, shape, idx);
  params += str_cat(idx, " R, ", idx, " C, ", idx, " rows_each, ", idx,
                    " chunks, unsigned long long* __restrict__ ws");
  const std::string column = str_cat("  const ", idx, " c = static_cast<", idx, ">(blockIdx.x) * ",
                                     kColumnThreads, " + threadIdx.x;\n  if (c >= C) return;\n");
  src.text = str_cat(
      text::prelude(), text::rng_prelude(graph), text::reduce_prelude(), kColumnPrelude, geo,
      "\nextern \"C\" __global__ void __launch_bounds__(", kColumnThreads, ") ", src.name, "(",
      params, ") {\n", column, "  const ", idx, " begin = static_cast<", idx,
      ">(blockIdx.y) * rows_each;\n  const ", idx, " end = begin + rows_each < R ? begin + ",
      "rows_each : R;\n", column_offsets, start, loop, "  if (chunks == 1) {\n", finish,
      "  } else {\n", stage, "  }\n}\n\nextern \"C\" __global__ void __launch_bounds__(",
      kColumnThreads, ") ", src.name, "_partials(", params, ") {\n", column, partials,
      "}\n\nextern \"C\" __global__ void __launch_bounds__(", kColumnThreads, ") ", src.name,
      "_partials_block(", params, ") {\n  const ", idx,
      " c = blockIdx.x;\n  __shared__ unsigned long long g_shm[8];\n", block_partials, "}\n");
  return src;
}

}  // namespace genesis::fusion

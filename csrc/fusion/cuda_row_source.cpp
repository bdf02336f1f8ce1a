// Note [Fused row groups on CUDA]: a row group (Note [Row groups] in group.h) becomes one
// generated kernel in which a block takes a row at a time (a grid-stride loop over the rows;
// a short row takes a warp instead: Note [Warp rows], below).
// The row's work goes in phases, one per level of reductions (those that need no row value of
// each other share one: Note [Reductions by dependency level]): each thread walks its items of
// the row (threadIdx.x, then blockDim.x apart, so a warp's loads stay coalesced), computes from the
// inputs the full ops that the reductions, or a result written in that phase, need, and folds
// each reduction's operand into its own accumulator; the block then combines the accumulators
// (warp shuffles, then the warps' partials through shared memory, folded in one order by every
// thread, so every thread holds the same row value), and the row ops after the reduction run in
// every thread. A full value that a later phase needs again is computed again from the inputs,
// which the row's earlier phase brought into the caches, instead of going to memory (a warp row
// keeps it in registers instead: Note [Values carried between phases]). Each op
// runs on the eager kernels' functors, as in Note [Fused groups on CUDA]; reductions accumulate
// in the compute type (float for the 16-bit floats, int64 for integer sums), as the eager CUDA
// reductions do, with NaN winning max and min. A sum adds in another order than eager's kernel,
// so it may differ from eager's in the last bits; max and min are exact. var's second pass (a
// SumSquares reduction whose operand b is the row's centre, a row value of an earlier phase)
// folds the square of each item less the centre, then divides by the row's length less the
// correction, and takes the root for std.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/errors.h"
#include "fusion/cuda_source.h"

namespace genesis::fusion {

namespace {

// The combiners and the block's reduction (shared by every row program).
constexpr const char* kRowPrelude = R"genesis_src(
struct g_sum {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return gm::wrap_add(a, b); }
};
struct g_prod {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const { return gm::wrap_mul(a, b); }
};
// max and min as eager's CUDA reduction combines them (kernels/reduce_extreme.cu's
// DeviceExtremeReducer): from compute capability 8.0 max.NaN/min.NaN for floats (the 16-bit
// floats accumulate as floats), else b taken when better or NaN; the portable rule for integers.
// The rules differ only in which zero a tie of -0 and +0 keeps, which must match eager's too.
struct g_max {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const {
#if __CUDA_ARCH__ >= 800
    if constexpr (std::is_same_v<A, float>) {
      float r;
      asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
      return r;
    }
#endif
    if constexpr (std::is_floating_point_v<A>) return (b > a || b != b) ? b : a;
    else return a > b ? a : b;
  }
};
struct g_min {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const {
#if __CUDA_ARCH__ >= 800
    if constexpr (std::is_same_v<A, float>) {
      float r;
      asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
      return r;
    }
#endif
    if constexpr (std::is_floating_point_v<A>) return (b < a || b != b) ? b : a;
    else return a < b ? a : b;
  }
};

// A warp's combination of its lanes' v (a warp-row program): shuffles, then lane 0's value to
// every lane (lanes may differ in which zero a tie keeps; lane 0's is the row's).
template <typename A, typename Op>
__device__ __forceinline__ A g_warp_reduce(A v, Op op) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return __shfl_sync(0xffffffffu, v, 0);
}

// The combination of a row's W warps' v (a row over several warps, Note [Rows over several
// warps]): each warp by shuffles, then the W partials folded in order by each of the row's
// threads. `slot` is the row's place in the block: its partials are shm[slot * W ...], its
// barrier (among its 32 * W threads only) is number 1 + slot.
template <int W, typename A, typename Op>
__device__ __forceinline__ A g_rows_reduce(A v, Op op, unsigned long long* shm, int slot) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  A* partial = reinterpret_cast<A*>(shm + slot * W);
  if ((threadIdx.x & 31) == 0) partial[(threadIdx.x >> 5) & (W - 1)] = v;
  asm volatile("bar.sync %0, %1;" : : "r"(1 + slot), "r"(32 * W) : "memory");
  v = partial[0];
#pragma unroll
  for (int w = 1; w < W; ++w) v = op(v, partial[w]);
  asm volatile("bar.sync %0, %1;" : : "r"(1 + slot), "r"(32 * W) : "memory");  // reused next
  return v;
}

// The block's combination of every thread's v: each warp by shuffles, then the warps' partials
// folded in order by every thread (all return the same value). Every thread of the block calls it.
template <typename A, typename Op>
__device__ __forceinline__ A g_block_reduce(A v, Op op, unsigned long long* shm) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  A* partial = reinterpret_cast<A*>(shm);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
  __syncthreads();
  v = partial[0];
  const int warps = (blockDim.x + 31) >> 5;
  for (int w = 1; w < warps; ++w) v = op(v, partial[w]);
  __syncthreads();  // the partials' memory is the next reduction's
  return v;
}
)genesis_src";

// The name an operand has in the program (v<op>, x<input>).
std::string name_of(const Ref& r) { return str_cat(r.is_op ? "v" : "x", r.index); }

}  // namespace

namespace text {

const char* reduce_prelude() { return kRowPrelude; }

Accumulator accumulator(const FusedOp& op) {
  const ScalarType t = op.compute;
  const bool floating = is_floating_point(t);
  Accumulator a;
  a.type = floating ? text::compute_type(t) : t == ScalarType::Int64 ? "long long" : "int";
  const bool wide = a.type == "long long";
  switch (static_cast<ops::ReduceOp>(op.code)) {
    case ops::ReduceOp::Sum:
    case ops::ReduceOp::SumSquares:  // of the items less the row's centre (var's second pass)
      a.combine = "g_sum";
      a.identity = "0";
      break;
    case ops::ReduceOp::Prod:
      a.combine = "g_prod";
      a.identity = "1";
      break;
    case ops::ReduceOp::Max:
      a.combine = "g_max";
      a.identity = floating ? "-INFINITY"
                   : wide   ? "(-9223372036854775807LL - 1)"
                            : "(-2147483647 - 1)";
      break;
    default:
      a.combine = "g_min";
      a.identity = floating ? "INFINITY" : wide ? "9223372036854775807LL" : "2147483647";
      break;
  }
  a.identity = str_cat("static_cast<", a.type, ">(", a.identity, ")");
  return a;
}

}  // namespace text

namespace {

// For experiments (tools/softmax_probe.py): GENESIS_WARP_ROW_MIN_BLOCKS=n asks ptxas for n
// blocks a multiprocessor in warp-row programs (fewer registers a thread, perhaps spills); unset
// or 0, none is asked. A masked softmax's backward over 8x12x1024x1024 bf16 ran at 25%
// occupancy with 117 registers (session 39's ncu run).
int warp_row_min_blocks() {
  static const int n = [] {
    const char* env = std::getenv("GENESIS_WARP_ROW_MIN_BLOCKS");
    return env != nullptr ? std::max(0, std::atoi(env)) : 0;
  }();
  return n;
}

}  // namespace

int row_lane_budget() {
  static const int n = [] {
    const char* env = std::getenv("GENESIS_ROW_LANE_VALUES");
    const int asked = env != nullptr ? std::atoi(env) : 0;
    return asked > 0 ? asked : 32;
  }();
  return n;
}

bool kept_input(const PhasePlan& plan, const KernelShape& shape, size_t i) {
  if (shape.row_input[i] || shape.column[i] || shape.row_broadcast[i]) return false;
  int phases_reading = 0;
  for (const auto& reads : plan.reads) phases_reading += reads[i];
  return phases_reading > 1;
}

int lane_values(const PhasePlan& plan, const KernelShape& shape) {
  int values = plan.most_live;
  for (size_t i = 0; i < shape.row_input.size(); ++i) values += kept_input(plan, shape, i);
  return std::max(values, 1);
}

// Note [Rows over several warps]: a warp row's lane holds row_size / 32 items of every value
// carried between phases; at 1024 items that is 32 registers a value, and a masked softmax's
// backward (three carried values, bf16 8x12x1024x1024) ran at 117 registers a thread, 25%
// occupancy, latency-bound (session 39's ncu run). So a row takes as many warps (1, 2, 4 or 8 of
// the block's 8) as bring the lane's kept item values (its items times the values and inputs
// kept across a phase's end, lane_values) to row_lane_budget() (32) or fewer, and its items to
// kWarpRowMaxItems: the lane's registers shrink with the warps, occupancy grows. Measured on an
// H100 (session 46) over the masked softmax's forward and backward, 8x12x1024x1024 bf16 (the
// forward keeps 2 values, the backward 4): one warp a row 1503 us, a budget of 64 (forward
// 1 warp, backward 2) 1236, of 32 (1 and 4) 1108-1118; at 16 (4 and 8) ncu timed the backward
// at 1.14 ms against 1.09 at 64, its named barriers holding occupancy to half. Softmax and layer
// norm rows of plain ops ran the same at 32 and 64. The row's reductions combine each warp
// by shuffles and then the warps' partials through shared memory, behind a named barrier of the
// row's own warps (the block's rows run apart: their grid-stride loops end at different rows).
// Rows of up to 8 warps * 32 lanes * kWarpRowMaxItems = 8192 items carry their values this way;
// longer ones take a block a row and compute the values again.
int row_warps_for(int64_t row_size, int values) {
  auto items = [&](int warps) { return (row_size + 32 * warps - 1) / (32 * warps); };
  int warps = 1;
  while (warps < kWarpRowsPerBlock &&
         (items(warps) > kWarpRowMaxItems || items(warps) * values > row_lane_budget()))
    warps *= 2;
  return warps;
}

int row_threads(int64_t row_size) {
  int threads = 32;
  while (threads < kRowMaxThreads && threads * int64_t{4} < row_size) threads *= 2;
  return threads;
}

// Note [Values carried between phases]: a row program's phase p computes the full ops that its
// reduction reads or that it writes, with the full ops those read. Without carrying, a full op
// that a later phase needs again is computed again there from the inputs: a masked softmax
// computed its exp twice and its scale and mask three times an item, and its backward (four
// phases) its exp four times, which made them compute-bound (514 and 1274 us on an H100 over
// 8x12x1024x1024 bf16, torch.compile 138 and 311). A warp row instead keeps each lane's items of
// such a value in registers (`vr<k>[items]`) from the phase that first computes it to the last
// that reads it: a later phase reads the value where it needs it and computes nothing beneath
// it. The values are the same (each op rounds to its dtype as eager stores it), so carrying
// changes no result. A full op written is written where it is first computed. Inputs read in
// several phases are kept in registers too (`xr<i>`) while the registers allow, else read again
// (from the caches); the carried values come first.
//
// Note [Reductions by dependency level]: phase p holds every reduction whose operands need the
// row values of phases before p only (a reduction's level: one more than the latest level of the
// reductions beneath it, 0 for none), so reductions independent of each other fold in one walk of
// the row: a masked softmax's backward sums x == amax beside its first sum, three walks instead
// of four. A full op belongs to the level of the row values it reads; a row op is computed as
// soon as the reductions beneath it are.
PhasePlan phase_plan(const Graph& graph, const std::vector<bool>& written, bool carry) {
  const size_t n_ops = graph.ops.size(), n_inputs = graph.inputs.size();
  PhasePlan plan;
  plan.phase.assign(n_ops, 0);
  size_t levels = 0;
  for (size_t k = 0; k < n_ops; ++k) {  // ops come after their operands
    const FusedOp& op = graph.ops[k];
    size_t level = 0;
    for (const Ref* r : {&op.a, &op.b, &op.cond}) {
      if (r->is_number() || !r->is_op) continue;
      const size_t at = static_cast<size_t>(r->index);
      // a reduction's value is there after its phase
      level = std::max(level, plan.phase[at] + (graph.ops[at].kind == OpKind::Reduce ? 1 : 0));
    }
    plan.phase[k] = level;
    if (op.kind == OpKind::Reduce) levels = std::max(levels, level + 1);
  }
  plan.reductions.assign(levels, {});
  for (size_t k = 0; k < n_ops; ++k)
    if (graph.ops[k].kind == OpKind::Reduce) plan.reductions[plan.phase[k]].push_back(k);
  const size_t phases = levels + 1;
  plan.computes.assign(phases, std::vector<char>(n_ops, 0));
  plan.carried.assign(phases, std::vector<char>(n_ops, 0));
  plan.reads.assign(phases, std::vector<char>(n_inputs, 0));
  plan.first.assign(n_ops, -1);
  plan.written_at.assign(n_ops, -1);
  std::vector<int> last_read(n_ops, -1);
  for (size_t p = 0; p < phases; ++p) {
    auto& computes = plan.computes[p];
    auto& carried = plan.carried[p];
    auto& reads = plan.reads[p];
    auto read = [&](const Ref& r, auto& visit) -> void {
      if (r.is_number()) return;
      if (!r.is_op) {
        reads[r.index] = 1;
      } else if (!graph.ops[r.index].row) {
        visit(static_cast<size_t>(r.index), visit);
      }
    };
    auto visit = [&](size_t k, auto& self) -> void {
      if (computes[k] || carried[k]) return;
      if (carry && plan.first[k] >= 0) {
        carried[k] = 1;
        last_read[k] = static_cast<int>(p);
        return;
      }
      computes[k] = 1;
      const FusedOp& op = graph.ops[k];
      for (const Ref* r : {&op.a, &op.b, &op.cond}) read(*r, self);
    };
    if (p < plan.reductions.size())
      for (size_t r : plan.reductions[p]) read(graph.ops[r].a, visit);
    for (size_t k = 0; k < n_ops; ++k)
      if (!graph.ops[k].row && plan.phase[k] == p && written[k] && !(carry && plan.first[k] >= 0))
        visit(k, visit);
    for (size_t k = 0; k < n_ops; ++k) {
      if (!computes[k]) continue;
      if (plan.first[k] < 0) plan.first[k] = static_cast<int>(p);
      // without carrying, a value is written in its own phase (computed there as a root)
      if (written[k] && plan.written_at[k] < 0 && (carry || plan.phase[k] == p))
        plan.written_at[k] = static_cast<int>(p);
    }
  }
  plan.kept.assign(n_ops, 0);
  for (size_t k = 0; k < n_ops; ++k) plan.kept[k] = last_read[k] >= 0;
  for (size_t b = 0; b + 1 < phases; ++b) {  // live across the end of phase b
    int live = 0;
    for (size_t k = 0; k < n_ops; ++k)
      live += plan.kept[k] && plan.first[k] <= static_cast<int>(b) &&
              last_read[k] > static_cast<int>(b);
    plan.most_live = std::max(plan.most_live, live);
  }
  return plan;
}

KernelSource cuda_row_source(const Graph& graph, const KernelShape& shape) {
  const char* idx = shape.index32 ? "int" : "long long";
  const size_t n_ops = graph.ops.size(), n_inputs = graph.inputs.size();
  auto row_input = [&](size_t i) { return static_cast<bool>(shape.row_input[i]); };
  std::string key = str_cat("rows1;", idx, ";rank", shape.rank, ";");
  for (size_t i = 0; i < n_inputs; ++i)
    key += str_cat("in:", text::storage_type(graph.inputs[i].dtype()),
                   row_input(i)             ? "/r"
                   : shape.row_broadcast[i] ? "/sb"
                   : shape.column[i]        ? "/c"
                   : shape.strided[i]       ? "/s"
                                            : "",
                   ";");

  // Note [Warp rows]: a row of at most 32 * kWarpRowMaxItems items goes to one warp, each lane
  // taking its items (lane, lane + 32, ...), with the warp's shuffles as the only combination
  // (no shared memory, no barrier); a block holds 8 such rows. A longer row, or one whose lanes
  // would keep more than row_lane_budget() item values, goes to 2, 4 or 8 warps, lanes 32 * warps
  // apart (Note [Rows over several warps]). A value or input a later phase needs again stays in the
  // lane's registers (Note [Values carried between phases]). Rows too long for 8 warps take a
  // block a row, compute such values again and read the row again each phase.
  const int items = shape.row_items;
  const bool warp = items > 0;
  const int warps = warp ? shape.row_warps : 1;                  // Note [Rows over several warps]
  const int lanes = 32 * warps;                                  // a row's threads
  const char* leader = warp ? "lane == 0" : "threadIdx.x == 0";  // writes the row's values
  // a warp row of exactly lanes * items items needs no test of an item's place against C
  const bool whole = shape.row_whole;
  if (warp)
    key += str_cat("warp", items, "x", warps, whole ? "/whole" : "",
                   warp_row_min_blocks() > 0 ? "/min" : "",
                   warp_row_min_blocks() > 0 ? std::to_string(warp_row_min_blocks()) : "", ";");
  const PhasePlan plan = phase_plan(graph, shape.written, warp);
  const auto& reductions = plan.reductions;  // per phase
  const size_t phases = reductions.size() + 1;
  // a warp row's inputs read in more than one phase, kept while the registers allow
  std::vector<bool> cached(n_inputs, false);
  if (warp) {
    int room = kWarpRowMaxCached / items - plan.most_live;
    for (size_t i = 0; i < n_inputs; ++i)
      if (kept_input(plan, shape, i) && room > 0) {
        cached[i] = true;
        --room;
      }
    for (size_t i = 0; i < n_inputs; ++i) key += cached[i] ? "k" : "-";
    key += ";";
  }
  const std::string item_loop =
      warp ? str_cat("#pragma unroll\n    for (int j = 0; j < ", items, "; ++j) {\n      const ",
                     idx, " c = lane + ", lanes, " * j;\n",
                     whole ? "" : "      if (c >= C) break;\n")
           : str_cat("    for (", idx, " c = threadIdx.x; c < C; c += blockDim.x) {\n");

  std::string body = "    // the row's inputs\n";
  // Note [Strided reads in row programs]: a strided input's offset is the row's part (the
  // leading dims, from the row index once a row) plus the item's (the row's own dims, from c):
  // per item only the row's dims are walked, one multiply when the row is the last dim. Walking
  // every dim per item cost two integer divisions a dim a phase, which held a masked softmax
  // over 8x12x1024x1024 bf16 (a broadcast mask) to a tenth of the memory's speed.
  const bool any_strided = shape.any_strided();
  const int row_dims = graph.row_dims;
  if (any_strided) {
    key += str_cat("rowdims", row_dims, ";");
    body +=
        text::walk_dims(shape.strided, idx, "row_rest", "row", row_dims - 1, 0, "b", "", "    ");
    for (size_t i = 0; i < n_inputs; ++i)  // a row value expanded along the row: read once
      if (shape.row_broadcast[i])
        body += str_cat("    const ", text::storage_type(graph.inputs[i].dtype()), " x", i, " = in",
                        i, "[b", i, "];\n");
  }
  // The offsets of item c of the row, of the strided inputs that `reads` names.
  auto item_offsets = [&](const std::vector<bool>& reads) {
    std::vector<bool> which(n_inputs);
    for (size_t i = 0; i < n_inputs; ++i)
      which[i] = reads[i] && shape.strided[i] && !shape.row_broadcast[i];
    std::string code;
    if (std::find(which.begin(), which.end(), true) == which.end()) return code;
    if (shape.rank - row_dims > 1)
      return text::walk_dims(which, idx, "rest", "c", shape.rank - 1, row_dims, "o", "b", "      ");
    for (size_t i = 0; i < n_inputs; ++i)
      if (which[i])
        code += str_cat("      const ", idx, " o", i, " = b", i, " + c * g.strides", i, "[",
                        shape.rank - 1, "];\n");
    return code;
  };
  for (size_t i = 0; i < n_inputs; ++i)
    if (row_input(i))
      body += str_cat("    const ", text::storage_type(graph.inputs[i].dtype()), " x", i, " = in",
                      i, "[row];\n");
  if (std::find(cached.begin(), cached.end(), true) != cached.end()) {
    for (size_t i = 0; i < n_inputs; ++i)
      if (cached[i])
        body += str_cat("    ", text::storage_type(graph.inputs[i].dtype()), " xr", i, "[", items,
                        "];\n");
    std::vector<bool> strided_cached(n_inputs);
    for (size_t i = 0; i < n_inputs; ++i) strided_cached[i] = cached[i] && shape.strided[i];
    body += str_cat(item_loop, "      const ", idx, " i = row * C + c;\n",
                    item_offsets(strided_cached));
    for (size_t i = 0; i < n_inputs; ++i)
      if (cached[i])
        body += str_cat("      xr", i, "[j] = in", i,
                        shape.strided[i] ? str_cat("[o", i, "]") : std::string("[i]"), ";\n");
    body += "    }\n";
  }
  for (size_t k = 0; k < n_ops; ++k)  // the values carried between phases
    if (plan.kept[k])
      body += str_cat("    ", text::storage_type(graph.ops[k].out), " vr", k, "[", items, "];\n");
  // The row ops whose reductions are done and not yet computed, in order (a row op reads row
  // values: reductions, row inputs and row ops before it).
  std::vector<bool> row_done(n_ops, false);
  auto ready_row_ops = [&]() {
    std::string code;
    for (size_t k = 0; k < n_ops; ++k) {
      const FusedOp& op = graph.ops[k];
      if (!op.row || row_done[k] || op.kind == OpKind::Reduce) continue;
      bool ready = true;
      for (const Ref* r : {&op.a, &op.b, &op.cond})
        ready = ready && (r->is_number() || !r->is_op || row_done[r->index]);
      if (!ready) continue;
      row_done[k] = true;
      const std::string expr = text::op_expression(op, k);
      code += str_cat("    const ", text::storage_type(op.out), " v", k, " = ", expr, ";\n");
      if (shape.written[k]) code += str_cat("    if (", leader, ") out", k, "[row] = v", k, ";\n");
      key += str_cat(k, "=r:", expr, shape.written[k] ? "/w" : "", ";");
    }
    return code;
  };
  body += ready_row_ops();  // those of row inputs only

  for (size_t p = 0; p < phases; ++p) {
    const bool reduces = p < reductions.size();
    const auto& computes = plan.computes[p];
    const auto& carried = plan.carried[p];
    const auto& reads = plan.reads[p];
    if (!reduces && std::find(computes.begin(), computes.end(), 1) == computes.end()) continue;
    std::vector<text::Accumulator> accs;  // the phase's reductions'
    if (reduces) {
      key += "phase:";
      for (size_t r : reductions[p]) {
        const text::Accumulator& acc = accs.emplace_back(text::accumulator(graph.ops[r]));
        body += str_cat("    ", acc.type, " acc", r, " = ", acc.identity, ";\n");
        key += str_cat(r, ",");
      }
      key += ";";
    }
    body += str_cat(item_loop, "      const ", idx, " i = row * C + c;\n");
    std::vector<bool> read_here(n_inputs);
    bool strided = false;
    for (size_t i = 0; i < n_inputs; ++i) {
      read_here[i] = reads[i];
      strided = strided || (reads[i] && shape.strided[i] && !cached[i]);
    }
    if (strided) body += item_offsets(read_here);
    for (size_t i = 0; i < n_inputs; ++i)
      if (reads[i] && !shape.row_broadcast[i] && !row_input(i))  // those are read once a row
        body += str_cat("      const ", text::storage_type(graph.inputs[i].dtype()), " x", i,
                        cached[i]          ? str_cat(" = xr", i, "[j]")
                        : shape.column[i]  ? str_cat(" = in", i, "[c]")
                        : shape.strided[i] ? str_cat(" = in", i, "[o", i, "]")
                                           : str_cat(" = in", i, "[i]"),
                        ";\n");
    for (size_t k = 0; k < n_ops; ++k) {
      const char* type = text::storage_type(graph.ops[k].out);
      if (carried[k]) body += str_cat("      const ", type, " v", k, " = vr", k, "[j];\n");
      if (!computes[k]) continue;
      const std::string expr = text::op_expression(graph.ops[k], k);
      body += str_cat("      const ", type, " v", k, " = ", expr, ";\n");
      if (plan.written_at[k] == static_cast<int>(p))
        body += str_cat("      out", k, "[i] = v", k, ";\n");
      if (plan.kept[k] && plan.first[k] == static_cast<int>(p))
        body += str_cat("      vr", k, "[j] = v", k, ";\n");
    }
    if (!reduces) {
      body += "    }\n";
      continue;
    }
    for (size_t a = 0; a < accs.size(); ++a) {  // fold each item into the phase's accumulators
      const size_t r = reductions[p][a];
      const FusedOp& op = graph.ops[r];
      const text::Accumulator& acc = accs[a];
      if (!op.b.is_number())  // SumSquares less the row value b
        body +=
            str_cat("      const ", acc.type, " d", r, " = g_convert<", acc.type, ">(",
                    name_of(op.a), ") - g_convert<", acc.type, ">(", name_of(op.b), ");\n      acc",
                    r, " = ", acc.combine, "{}(acc", r, ", d", r, " * d", r, ");\n");
      else
        body += str_cat("      acc", r, " = ", acc.combine, "{}(acc", r, ", g_convert<", acc.type,
                        ">(", name_of(op.a), "));\n");
    }
    body += "    }\n";
    for (size_t a = 0; a < accs.size(); ++a) {  // combine the row's accumulators in turn
      const size_t r = reductions[p][a];
      const FusedOp& op = graph.ops[r];
      const text::Accumulator& acc = accs[a];
      const bool centred = !op.b.is_number();
      body += !warp ? str_cat("    acc", r, " = g_block_reduce(acc", r, ", ", acc.combine,
                              "{}, g_shm);\n")
              : warps == 1
                  ? str_cat("    acc", r, " = g_warp_reduce(acc", r, ", ", acc.combine, "{});\n")
                  : str_cat("    acc", r, " = g_rows_reduce<", warps, ">(acc", r, ", ", acc.combine,
                            "{}, g_shm, slot);\n");
      std::string finished = str_cat("acc", r);
      // a mean divides by the row's length; var by it less the correction
      if (op.finish.divide)
        finished = centred ? str_cat("(acc", r, " / static_cast<", acc.type, ">(",
                                     text::double_literal(op.finish.divisor), "))")
                           : str_cat("(acc", r, " / static_cast<", acc.type, ">(C))");
      if (op.finish.sqrt) finished = str_cat("gm::m_sqrt(", finished, ")");
      body += str_cat("    const ", text::storage_type(op.out), " v", r, " = g_convert<",
                      text::storage_type(op.out), ">(", finished, ");\n");
      if (shape.written[r]) body += str_cat("    if (", leader, ") out", r, "[row] = v", r, ";\n");
      key += str_cat(r, "=", acc.combine, op.finish.divide ? "/mean" : "", "(", name_of(op.a),
                     centred ? " less " + name_of(op.b) : "", ")", finished,
                     shape.written[r] ? "/w" : "", ";");
      row_done[r] = true;
    }
    body += ready_row_ops();
  }
  // the full ops, named by what they compute (their text is in the body once per phase)
  for (size_t k = 0; k < n_ops; ++k)
    if (!graph.ops[k].row)
      key +=
          str_cat(k, "=", text::op_expression(graph.ops[k], k), shape.written[k] ? "/w" : "", ";");

  KernelSource src;
  src.key = key;
  src.name = text::kernel_name(key);
  std::string params = text::group_params(graph, shape, idx);
  const std::string geo_struct = text::geo_struct(graph, shape, idx);
  const int rows_per_block = kWarpRowsPerBlock / warps;
  const std::string rows_loop =
      warp ? str_cat(
                 warps > 1
                     ? str_cat("  __shared__ unsigned long long g_shm[", kWarpRowsPerBlock, "];\n")
                     : std::string(),
                 "  const int lane = threadIdx.x % ", lanes, ";\n  const int slot = threadIdx.x / ",
                 lanes, ";\n  for (", idx, " row = static_cast<", idx, ">(blockIdx.x) * ",
                 rows_per_block, " + slot; row < rows; row += static_cast<", idx, ">(gridDim.x) * ",
                 rows_per_block, ") {\n")
           : str_cat("  __shared__ unsigned long long g_shm[32];\n  for (", idx,
                     " row = blockIdx.x; row < rows; row += gridDim.x) {\n");
  const int min_blocks = warp ? warp_row_min_blocks() : 0;
  src.text = str_cat(text::prelude(), text::rng_prelude(graph), kRowPrelude, geo_struct,
                     "\nextern \"C\" __global__ void __launch_bounds__(",
                     warp ? 32 * kWarpRowsPerBlock : kRowMaxThreads,
                     min_blocks > 0 ? str_cat(", ", min_blocks) : std::string(), ") ", src.name,
                     "(", params, idx, " rows, ", idx, " C) {\n", rows_loop, body, "  }\n}\n");
  return src;
}

}  // namespace genesis::fusion

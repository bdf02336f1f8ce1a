#pragma once
// Note [Fusing by deferring elementwise ops]
// genesis.compile runs the user's Python function every call, as eager code does, inside a
// compiled region. In the region an elementwise op (unary, binary, where) whose result is fresh
// does not run: it is appended to the thread's open *group* and its result's storage is left
// pending (Note [Deferred storages] in core/storage.h). The group runs as one pass over memory
// when something needs its values: an op that is not elementwise reads a pending result, a
// result leaves genesis (NumPy, DLPack, printing, item()), the region ends, an op on another
// device or stream arrives, or the group is full (a thread keeps a group open per shape: Note
// [Open groups] in group.cpp). Running it:
// - reads each input once and writes only the results still held by someone when it runs (a
//   Python name, a view, autograd's saved tensors): the temporaries of an expression such as
//   x * 0.5 * (1 + tanh(...)) were freed by then, and their values live only in registers (CUDA)
//   or in a chunk of cache (CPU);
// - computes each op exactly as its eager kernel does, on the same functors (vocab/
//   math_functors.h), rounding each result to its dtype before the next op reads it, so a fused
//   chain gives eager's bits.
// Why defer instead of tracing a graph once and replaying it (torch.compile's way): Python runs
// every call, so data-dependent control flow, globals, side effects and changed shapes behave as
// in eager code and no guard can go stale; a value Python asks for (item(), bool()) simply runs
// the group so far. The cost is the Python time of calling each op, which eager code pays too.
// The inputs of a group stay held (and watched: a write to one first runs the group), so an
// in-place update after a deferred read cannot change what the group reads. An op reading memory
// that others may write without genesis seeing it (NumPy's, a DLPack producer's, a file map,
// shared memory, an exported address: Note [Write versions]) is not deferred at all.
//
// Note [Row groups]
// A reduction of the trailing dims of a value of the group's shape (sum, mean, prod, amax, amin,
// keepdim or not: the rows of ops/reduce.cpp's layout) joins the group too, on the CPU: the
// group becomes a row group, its full values (one per item of the shape) split into rows, and
// the reduction's result is a row value (one per row). Elementwise ops over as many items as
// there are rows (`var + eps`, `rsqrt`, a cast) join as row ops, and a full op may read a row
// value broadcast along the rows (`x - x.amax(-1, keepdim=True)`, the expand of a sum's
// backward). So softmax, layer norm and their backward passes written with plain ops run as one
// pass over memory: the CPU executor takes a block of rows at a time, and reduces each row with
// eager's own whole-row loop (cpu::reduce_rows), so the results keep eager's bits. var and std
// join as eager computes them: a mean (the centre, a row value), then a sum of squares
// of the items less the centre (a Reduce whose second operand is that row value). Not joined
// (they run eagerly, running the group first): rows longer than 65536 items (eager splits a few
// long rows over the threads) and arg reductions. On CUDA a row group is one generated kernel
// (Note [Fused row groups on CUDA] in cuda_row_source.cpp).
//
// Note [Column groups]
// A reduction of the leading dims of a value of the group's shape (sum, mean, prod, amax, amin:
// ops/reduce.cpp's layout with outer 1, such as a bias gradient `grad.sum(0)` or a norm
// weight's `(g * xhat).sum((0, 1))`) joins a group that is not a row group, on the CPU: the
// group becomes a column group, and the reduction's result, one value per column, is written
// when the group runs. Nothing in the group reads a column value (an op that does runs the
// group first), so the reduction only ends the pass: the values it reduces, and those the
// group writes, are computed once. The CPU executor takes a block of columns a thread, walks
// its rows in pieces of 64 and hands each piece to the column loop's own accumulators
// (Note [Column reductions in pieces] in cpu/reduce.cpp), so the results keep eager's bits.
// On CUDA the group is a generated program that reduces as eager's CUDA column reduction does
// (Note [Fused column groups on CUDA] in cuda_column_source.cpp), with eager's bits too.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "vocab/op_codes.h"
#include "vocab/reducers.h"

namespace genesis::fusion {

// A compiled region on this thread: while one is open, eligible elementwise ops are deferred.
// Regions nest; closing the outermost one runs the open group.
void enter_region(bool fullgraph = false);
void exit_region();
bool region_active();
// A tensor's value is about to reach Python (item(), bool(), tolist(), numpy()): inside a region
// opened with fullgraph, raises RuntimeError "[op] ..." (genesis.compile(fullgraph=True)).
void check_python_read(const char* op);
// Runs the thread's open groups now.
void flush();

// Each returns true when the op joined the open group (its result's values come later), false
// when the caller must run it now. `out` is the fresh contiguous result the caller allocated;
// inputs are already in the compute dtype and broadcast to out's shape (an undefined tensor is
// the number in its ScalarArg / bits), as the device loops take them.
bool defer_unary(ops::UnaryOp op, const Tensor& out, const Tensor& a);
bool defer_binary(ops::BinaryOp op, ScalarType compute, const Tensor& out, const Tensor& a,
                  const ops::ScalarArg& sa, const Tensor& b, const ops::ScalarArg& sb);
bool defer_where(const Tensor& out, const Tensor& cond, const Tensor& a, uint64_t a_bits,
                 const Tensor& b, uint64_t b_bits);
// out = src converted to out's dtype (a cast or a copy; src of out's shape, any strides).
bool defer_cast(const Tensor& out, const Tensor& src);
// out[j] = the reduction of row j of `in` (contiguous, its items in out.numel() rows; Sum, Prod,
// Max, Min, `finish` dividing for mean; SumSquares of the items less `center`[j], var's second
// pass) (Note [Row groups]).
bool defer_reduce(ops::ReduceOp op, const Tensor& in, const Tensor& out,
                  const ops::ReduceFinish& finish, const Tensor& center = Tensor());
// out[i] = the reduction of column i of `in` (contiguous, its items in rows of out.numel();
// Sum, Prod, Max, Min, `finish` dividing for mean) (Note [Column groups]).
bool defer_column_reduce(ops::ReduceOp op, const Tensor& in, const Tensor& out,
                         const ops::ReduceFinish& finish);

// What the groups run so far did (process-wide), for tests and GENESIS_LOGS=compile.
struct Stats {
  int64_t groups = 0;           // groups run
  int64_t ops = 0;              // ops they held
  int64_t results_written = 0;  // results someone still held
  int64_t results_skipped = 0;  // results nobody held: never written
  int64_t bytes_skipped = 0;    // the writes and reads of those results, saved
  // Note [Recomputed values] (group.cpp): results only autograd held, left unwritten; their
  // recomputations copied into a later group, and those run on their own (a value needed by an
  // op that is not fused); recomputations not yet run or let go.
  int64_t results_recomputable = 0;
  int64_t recomputed_in_groups = 0;
  int64_t recomputed_alone = 0;
  int64_t recipes_alive = 0;
};
Stats stats();
void reset_stats();
// Dropout (ops::fused_dropout, its counters reserved by the caller): mask = the draws of
// (seed, offset) for each item of in's shape, out = in * (mask ? scale : 0) with the scale rounded
// to in's dtype; and its backward, out = grad * (mask ? scale : 0). Fresh contiguous out and mask.
bool defer_dropout(const Tensor& out, const Tensor& mask, const Tensor& in, float keep,
                   double scale, uint64_t seed, uint64_t offset);
bool defer_masked_scale(const Tensor& out, const Tensor& grad, const Tensor& mask, double scale);

// The fewest items a CPU op needs to start a group (Note [Small groups on the CPU] in
// group.cpp; 4096, tests 0).
void set_cpu_min_items(int64_t items);
// Whether results that only autograd holds are recomputed instead of written: always, never,
// or (nullopt, the default) on CUDA only.
void set_recompute(std::optional<bool> on);
// Whether each group run is described on stderr (GENESIS_LOGS=compile).
void set_logging(bool on);
// Whether CUDA groups are deferred (unless GENESIS_COMPILE_CUDA=0 at start, or this call), and
// whether they are now (NVRTC loaded as well).
void set_cuda_fusion(bool on);
bool cuda_fusion();

// Tests: run every group with the eager loops (fusion/eager_executor.cpp); keep the CUDA program
// of every group that runs, on any device, as (kernel name, text).
void set_eager_executor_for_tests(bool on);
void capture_sources_for_tests(bool on);
std::vector<std::pair<std::string, std::string>> captured_sources();
// Captured programs whose structure key and kernel name (a hash of the text) disagree.
int64_t captured_key_mismatches();

}  // namespace genesis::fusion

#pragma once
// The recorded form of a fused group (Note [Fusing by deferring elementwise ops] in group.h):
// its ops in order, each reading the group's inputs and the results of earlier ops, over one
// iteration shape, or (a row group, Note [Row groups] in group.h) over its rows and their items.
// group.cpp records it; the executors (cpu_executor.cpp, cuda_executor.cpp) run it.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "vocab/op_codes.h"
#include "vocab/reducers.h"

namespace genesis::fusion {

// An operand of an op: input `index` of the group, the result of op `index`, or (index -1) the
// op's number.
struct Ref {
  bool is_op = false;
  int index = -1;
  bool is_number() const { return index < 0; }
};

// Reduce: the rows of a full value (a) reduced to one value each (Sum, Prod, Max, Min;
// SumSquares of the items less the row value b, var's second pass), or (column) its columns.
// DropoutMask: item i is kept (true) as fused_dropout draws it (Note [Fused dropout] in
// ops/dropout.cpp): Philox counter offset + i / 4 of key seed (a_bits, b_bits), word i % 4 as a
// uniform float below keep (sa.d); it reads nothing.
enum class OpKind : uint8_t { Unary, Binary, Where, Cast, Reduce, DropoutMask };

struct FusedOp {
  OpKind kind;
  int code;            // the UnaryOp / BinaryOp / ReduceOp
  ScalarType compute;  // the dtype its operands are in (Where: the values'; Cast: the source's)
  ScalarType out;      // its result's dtype
  Ref a, b, cond;      // Unary, Cast: a; Binary: a, b; Where: cond, a, b
  ops::ScalarArg sa, sb;
  uint64_t a_bits = 0, b_bits = 0;  // Where's number operands
  // Unary: eager's loop would read `a` strided (an input whose innermost dim is not dense), so
  // the executor computes it as that loop does (cpu::unary_run's as_strided).
  bool strided_read = false;
  // A row value (one per row of a row group: Reduce's result and ops over those) rather than a
  // full one (one per item of the group's shape). A full op reading a row value reads it
  // broadcast along the row.
  bool row = false;
  // A Reduce of the leading dims (Note [Column groups]): one value per column, which no op of
  // the group reads (the group ends before anything does).
  bool column = false;
  ops::ReduceFinish finish;  // Reduce: mean's division
  // Copied in from a recomputation (Note [Recomputed values] in group.cpp): a value autograd
  // saved, computed again here from what it was computed from instead of read from memory.
  bool recomputed = false;
  // The result's memory: written only if someone still holds it when the group runs.
  std::weak_ptr<StorageImpl> storage;
};

struct Graph {
  Device device{DeviceType::CPU, -1};
  uintptr_t stream = 0;  // CUDA: the stream current when the group began (its ops' stream)
  Shape shape;           // of the full values
  int64_t numel = 0;
  // A row group: the full values' items split into `rows` rows of `row_size` (the trailing dims
  // of `shape` from `row_dims` on); 0 rows in a group without reductions.
  int64_t rows = 0, row_size = 0;
  int row_dims = 0;
  // A column group (Note [Column groups] in group.h): its column reductions reduce the leading
  // dims of the full values to `columns` values (the trailing items of one row of the shape).
  int64_t columns = 0;
  int64_t numel_of(const FusedOp& op) const { return op.column ? columns : op.row ? rows : numel; }
  // The strides of a view over `shape` that repeats each row value along its row.
  Shape row_value_strides() const {
    Shape strides(shape.size(), 0);
    int64_t stride = 1;
    for (size_t d = static_cast<size_t>(row_dims); d-- > 0;) {
      strides[d] = stride;
      stride *= shape[d];
    }
    return strides;
  }
  std::vector<Tensor> inputs;  // the views read (held, so their memory stays)
  std::vector<FusedOp> ops;
};

// One run's results: the memory of each op's result (null when nobody holds it).
struct Results {
  std::vector<std::shared_ptr<StorageImpl>> held;
};

// Memory from the device's allocator on the group's stream (the caching pool ties a block to the
// stream it was made for; the group's work runs there), given back when the DataPtr goes.
DataPtr allocate_on_group_stream(const Graph& graph, size_t nbytes);

// Runs `graph` on the CPU, writing the held results (cpu_executor.cpp).
void run_on_cpu(const Graph& graph, const Results& results);
// Runs `graph` on CUDA as one generated kernel (cuda_executor.cpp); falls back to run_eagerly
// when the program cannot be built.
void run_on_cuda(const Graph& graph, const Results& results);
// Runs each op with the device's eager loop, in order (eager_executor.cpp).
void run_eagerly(const Graph& graph, const Results& results);

}  // namespace genesis::fusion

// A group's ops run one at a time with the device's eager loops (cpu/elementwise.h,
// cuda/elementwise.h): what a CUDA group does when its program cannot be built (no NVRTC, a
// refused program), so a compiled function never fails where eager code would not. Each held
// result is written through a second, non-owning storage over its memory, so the write counts
// no version of the result's own storage (as result_data(): Note [Deferred storages]); the
// other results are temporaries.
#include <vector>

#include "cpu/copy.h"
#include "cpu/dropout.h"
#include "cpu/elementwise.h"
#include "cpu/reduce.h"
#include "cuda/copy.h"
#include "cuda/dropout.h"
#include "cuda/elementwise.h"
#include "cuda/reduce.h"
#include "cuda/stream.h"
#include "fusion/graph.h"

namespace genesis::fusion {

namespace {

// The group's stream made current for the run (the eager loops launch on the current stream).
class StreamScope {
 public:
  explicit StreamScope(const Graph& graph) : device_(graph.device) {
    if (!device_.is_cuda()) return;
    previous_ = cuda::current_stream(device_.index);
    cuda::set_current_stream(device_.index, graph.stream);
  }
  ~StreamScope() {
    if (device_.is_cuda()) cuda::set_current_stream(device_.index, previous_);
  }
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  Device device_;
  cuda::StreamId previous_ = 0;
};

}  // namespace

void run_eagerly(const Graph& graph, const Results& results) {
  StreamScope scope(graph);
  std::vector<Tensor> values(graph.ops.size());
  // A row group's row values over [rows]; a full op reads one as a view over the shape that
  // repeats each along its row (Note [Row groups] in group.h).
  const Shape row_shape{graph.rows};
  const Shape row_strides = graph.row_value_strides();
  // A row op runs over the sizes of its inputs (any with as many items as there are rows), and
  // reads row values as contiguous tensors of those sizes.
  Shape row_op_shape;
  auto operand = [&](const Ref& r, bool row) -> Tensor {
    if (r.is_number()) return Tensor();
    if (!r.is_op) return graph.inputs[r.index];
    const Tensor& v = values[r.index];
    if (!graph.ops[r.index].row) return v;
    if (row)
      return Tensor(v.storage(), row_op_shape, contiguous_strides(row_op_shape), 0, v.dtype());
    return Tensor(v.storage(), graph.shape, row_strides, 0, v.dtype());
  };
  const bool cuda = graph.device.is_cuda();
  for (size_t k = 0; k < graph.ops.size(); ++k) {
    const FusedOp& op = graph.ops[k];
    row_op_shape = row_shape;
    for (const Ref* r : {&op.a, &op.b, &op.cond})
      if (op.row && op.kind != OpKind::Reduce && !r->is_op && !r->is_number())
        row_op_shape = graph.inputs[r->index].sizes();
    const Shape column_shape{graph.columns};
    const Shape& shape = op.column                   ? column_shape
                         : !op.row                   ? graph.shape
                         : op.kind == OpKind::Reduce ? row_shape
                                                     : row_op_shape;
    if (results.held[k]) {
      const std::shared_ptr<StorageImpl>& held = results.held[k];
      Storage alias = Storage::wrap(DataPtr(held->result_data(), nullptr, nullptr, graph.device),
                                    held->nbytes());
      values[k] = Tensor(alias, shape, contiguous_strides(shape), 0, op.out);
    } else {
      values[k] = Tensor::empty(shape, op.out, graph.device);
    }
    const Tensor& out = values[k];
    const bool row = op.row && op.kind != OpKind::Reduce;  // the level its operands are read at
    Tensor a = operand(op.a, row), b = operand(op.b, row);
    switch (op.kind) {
      case OpKind::Unary:
        if (cuda)
          cuda::unary(static_cast<ops::UnaryOp>(op.code), out, a);
        else
          cpu::unary(static_cast<ops::UnaryOp>(op.code), out, a);
        break;
      case OpKind::Binary:
        if (cuda)
          cuda::binary(static_cast<ops::BinaryOp>(op.code), op.compute, out, a, op.sa, b, op.sb);
        else
          cpu::binary(static_cast<ops::BinaryOp>(op.code), op.compute, out, a, op.sa, b, op.sb);
        break;
      case OpKind::Cast:
        if (cuda)
          cuda::copy(out, a);
        else
          cpu::copy(out, a);
        break;
      case OpKind::Where: {
        Tensor cond = operand(op.cond, row);
        if (cuda)
          cuda::where(out, cond, a, op.a_bits, b, op.b_bits);
        else
          cpu::where(out, cond, a, op.a_bits, b, op.b_bits);
        break;
      }
      case OpKind::DropoutMask: {
        if (cuda) {  // the eager kernel's mask (its other result unused)
          Tensor any = Tensor::empty(shape, ScalarType::Float32, graph.device);
          Tensor unused = Tensor::empty(shape, ScalarType::Float32, graph.device);
          cuda::fused_dropout(any, unused, out, static_cast<float>(op.sa.d), 1.0,
                              cuda::PhiloxArgs{op.a_bits, op.b_bits, nullptr});
        } else {
          cpu::dropout_mask_run(out.mutable_data_as<bool>(), 0, out.numel(),
                                static_cast<float>(op.sa.d), op.a_bits, op.b_bits);
        }
        break;
      }
      case OpKind::Reduce: {
        // rows, or (Note [Column groups]) one outer slice of rows of `columns` items
        const ops::ReduceShape rows =
            op.column ? ops::ReduceShape{1, graph.numel / graph.columns, graph.columns}
                      : ops::ReduceShape{graph.rows, graph.row_size, 1};
        Tensor in = a;
        if (!a.is_contiguous()) {  // a row value read broadcast
          in = Tensor::empty(a.sizes(), a.dtype(), graph.device);
          if (cuda)
            cuda::copy(in, a);
          else
            cpu::copy(in, a);
        }
        const Tensor center = operand(op.b, true);  // var's second pass: the rows' centres
        if (cuda)
          cuda::reduce(static_cast<ops::ReduceOp>(op.code), in, rows, out, {}, center, op.finish);
        else
          cpu::reduce(static_cast<ops::ReduceOp>(op.code), in, rows, out, {}, center, op.finish);
        break;
      }
    }
  }
}

}  // namespace genesis::fusion

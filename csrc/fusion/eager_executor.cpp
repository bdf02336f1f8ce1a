// A group's ops run one at a time with the device's eager loops (cpu/elementwise.h,
// cuda/elementwise.h): what a CUDA group does when its program cannot be built (no NVRTC, a
// refused program), so a compiled function never fails where eager code would not. Each held
// result is written through a second, non-owning storage over its memory, so the write counts
// no version of the result's own storage (as result_data(): Note [Deferred storages]); the
// other results are temporaries.
#include <vector>

#include "cpu/copy.h"
#include "cpu/elementwise.h"
#include "cuda/copy.h"
#include "cuda/elementwise.h"
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
  auto operand = [&](const Ref& r) -> Tensor {
    if (r.is_number()) return Tensor();
    return r.is_op ? values[r.index] : graph.inputs[r.index];
  };
  const bool cuda = graph.device.is_cuda();
  for (size_t k = 0; k < graph.ops.size(); ++k) {
    const FusedOp& op = graph.ops[k];
    if (results.held[k]) {
      const std::shared_ptr<StorageImpl>& held = results.held[k];
      Storage alias = Storage::wrap(DataPtr(held->result_data(), nullptr, nullptr, graph.device),
                                    held->nbytes());
      values[k] = Tensor(alias, graph.shape, contiguous_strides(graph.shape), 0, op.out);
    } else {
      values[k] = Tensor::empty(graph.shape, op.out, graph.device);
    }
    const Tensor& out = values[k];
    Tensor a = operand(op.a), b = operand(op.b);
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
        Tensor cond = operand(op.cond);
        if (cuda)
          cuda::where(out, cond, a, op.a_bits, b, op.b_bits);
        else
          cpu::where(out, cond, a, op.a_bits, b, op.b_bits);
        break;
      }
    }
  }
}

}  // namespace genesis::fusion

#pragma once
// The graph: nodes (one backward function each), the edges between them, and the tensors a
// node saves for its formula.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "autograd/meta.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/tensor.h"

namespace genesis::autograd {

using Grads = std::vector<Tensor>;

// Where a gradient goes: input `input_nr` of node `fn` (null fn: the input needs no grad).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
};

// Shape, dtype and device of a tensor that is gone: what a gradient for it must look like.
struct TensorInfo {
  Shape sizes;
  ScalarType dtype = ScalarType::Float32;
  Device device;
  explicit TensorInfo(const Tensor& t) : sizes(t.sizes()), dtype(t.dtype()), device(t.device()) {}
  TensorInfo() = default;
};

// Note [Saved tensors]
// ~~~~~~~~~~~~~~~~~~~~
// A node keeps what its formula needs as SavedTensors. Each records the storage's write
// version when saved (Note [Write versions] in core/storage.h), and unpacking a tensor whose
// storage was written since raises PyTorch's "modified by an inplace operation" error instead
// of computing a wrong gradient. An input is saved with its meta, so a double backward
// (create_graph) differentiates through it. The node's own output is saved without it and
// with a weak pointer back to the node: a strong one would be a cycle (node -> saved output
// -> meta -> node) that never frees. release() drops the tensor once backward has used it,
// unless retain_graph, so memory returns as the pass goes.
//
// Note [Exports of saved tensors]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The version check sees genesis's own writes, not writes by others through an exported
// address. So while a saved tensor holds a storage it counts itself on the storage
// (StorageImpl::add_saved_uses), and numpy(), __array__ and __dlpack__ of any tensor of that
// storage, or of a tensor that requires grad, export it read-only (export_read_only): a NumPy
// array with writeable=False, a versioned DLPack capsule flagged read-only, a legacy capsule a
// copy. A write through the export then fails where it is made instead of changing what
// backward computes. PyTorch refuses numpy() of a tensor that requires grad; a read-only array
// keeps plotting a parameter working. Exports made before the tensor was saved stay writable
// (the address left genesis before autograd knew of it), as in PyTorch.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output);
  SavedTensor(const SavedTensor& o);
  SavedTensor(SavedTensor&& o) noexcept;
  SavedTensor& operator=(SavedTensor o) noexcept;
  ~SavedTensor() { release(); }
  // An output of `node` (output number `output_nr`), saved without its meta (no cycle).
  static SavedTensor output(const Tensor& t, std::weak_ptr<Node> node, uint32_t output_nr);
  Tensor unpack(const Node& owner) const;
  void release();

 private:
  void swap(SavedTensor& o) noexcept;

  Tensor data_;
  uint64_t version_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  std::weak_ptr<Node> output_of_;
  uint32_t output_nr_ = 0;
  friend struct Recorder;
};

// Whether an export of `t` must be read-only (Note [Exports of saved tensors]): its storage is
// read-only or saved for backward, or it requires grad.
bool export_read_only(const Tensor& t);

// A hook that the engine runs on the gradient of one output of a node (a non-leaf tensor's
// register_hook), or that stores it (retain_grad).
struct OutputHook {
  int64_t id = 0;
  uint32_t output_nr = 0;
  GradHook fn;                         // set for register_hook
  std::weak_ptr<AutogradMeta> retain;  // set for retain_grad
};

// Note [Iterative graph teardown]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A node holds the nodes of its inputs (next_edges) and, through saved inputs' metas, more
// nodes: dropping the last reference to the newest node of a chain of N ops would destroy N
// nodes recursively, one C++ frame each, and a chain of a few hundred thousand ops (a long
// loop, a long in-place history) ran out of stack. So every node is made by make_node, whose
// deleter destroys one node at a time: a node whose last reference goes while another node is
// being destroyed on this thread is queued, and the outermost deleter empties the queue in a
// loop. The depth of destruction is then one node, whatever the graph, as PyTorch's deleteNode.
void delete_node(Node* node);

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Gradients of the outputs (each defined: the engine fills missing ones with zeros) ->
  // gradients of the inputs, one per next edge (undefined where an input needs none).
  virtual Grads apply(Grads&& grads) = 0;
  virtual std::string name() const = 0;
  // Drops the saved tensors (after a backward without retain_graph).
  virtual void release_saved() {}
  // Whether input `i` needs a gradient (ctx.needs_input_grad).
  bool needs_grad(size_t i) const { return i < next_edges.size() && next_edges[i].fn != nullptr; }

  std::vector<Edge> next_edges;
  std::vector<TensorInfo> input_info;   // per next edge: the shape its gradient must have
  std::vector<TensorInfo> output_info;  // per output: the shape of a zero gradient
  std::vector<OutputHook> output_hooks;
  uint64_t sequence_nr;  // creation order: the engine runs later nodes first
  // Made inside a compiled region (genesis.compile): a backward pass from such a node runs in a
  // region too, so its elementwise gradient ops fuse (Note [Fusing by deferring elementwise
  // ops] in fusion/group.h).
  bool compiled;
  // Note [A gradient summed where it is made] (engine.cpp): a node whose formula adds a
  // gradient already waiting for its input 0 into the gradient it makes for that input (the
  // fused norms' backward kernel does it as it writes). The engine passes that partial sum to
  // apply as one more gradient after the outputs' (per call, so passes on other threads that
  // share the node see none of it).
  bool sums_partial = false;
  // Note [A gradient widened where it is used] (engine.cpp): a node whose apply takes its
  // outputs' float32 gradients as float16 or bfloat16 too, widening them as it reads them (the
  // fused norms' backward kernel).
  bool reads_narrow_grads = false;
};

// Every node is made by make_node (Note [Iterative graph teardown]).
template <typename T, typename... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  return std::shared_ptr<T>(new T(std::forward<Args>(args)...), &delete_node);
}

// The node of a recorded op: a formula over the saved tensors (Note [Formula nodes]).
class FormulaNode : public Node {
 public:
  using Formula = std::function<Grads(const FormulaNode& node, const Grads& grads,
                                      const std::vector<Tensor>& saved)>;
  FormulaNode(std::string name, Formula formula)
      : name_(std::move(name)), formula_(std::move(formula)) {}
  Grads apply(Grads&& grads) override;
  std::string name() const override { return name_; }
  void release_saved() override;

  std::vector<SavedTensor> saved;

 private:
  std::string name_;
  Formula formula_;
};

// A leaf's node: adds the gradient into Tensor.grad (after the leaf's hooks).
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(const Tensor& leaf);
  Grads apply(Grads&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  // The leaf (a strong reference, as in PyTorch: the graph keeps its leaves alive).
  Tensor leaf;
};

// Where the gradient of `t` goes: its grad_fn's output, its leaf's accumulator, or nowhere.
Edge gradient_edge(const Tensor& t);
// The leaf's AccumulateGrad node, made on first use.
std::shared_ptr<Node> grad_accumulator(const Tensor& t);

// Note [Formula nodes]
// ~~~~~~~~~~~~~~~~~~~~
// Each differentiable op records one FormulaNode: a name (PyTorch's, "MulBackward0"), the
// edges to its tensor inputs, their shapes, the tensors it saves and a formula. The formula
// captures only plain values (dims, scalars, shapes), never a Tensor: tensors go through
// `saved`, so that release_saved() frees them and version checks guard them. Formulas are
// written with the differentiable ops of autograd/ops.h, so under create_graph the gradient is
// itself recorded. The engine reduces a gradient to its input's shape, dtype and device
// (broadcasting, promotion, a CPU scalar next to CUDA tensors), so formulas need not.
//
// record(): when grad mode is on and an input requires grad, makes the node, connects it and
// gives each floating output its history; otherwise returns null and costs one test per input.
struct Recorder {
  std::shared_ptr<FormulaNode> node;
  explicit operator bool() const { return node != nullptr; }
  void save(const Tensor& t) const { node->saved.emplace_back(t, false); }
  void save_output(const Tensor& t, uint32_t output_nr = 0) const;
  void save_none() const { node->saved.emplace_back(); }
};

// Whether any of `inputs` needs a gradient under the current mode.
bool any_requires_grad(std::initializer_list<const Tensor*> inputs);
bool any_requires_grad(const std::vector<Tensor>& inputs);
Recorder record(const char* name, std::initializer_list<const Tensor*> inputs,
                FormulaNode::Formula formula);
// The same for a list of inputs (cat, stack).
Recorder record(const char* name, const std::vector<Tensor>& inputs, FormulaNode::Formula formula);
// Gives `outputs` (the node's outputs, in order) their history; integer and bool outputs stay
// outside the graph. Call after saving: an output saved for backward is saved as an output.
void set_history(const Recorder& r, std::initializer_list<Tensor*> outputs);
void set_history(const Recorder& r, const std::vector<Tensor*>& outputs);
// The same for any node (a custom Function's).
void set_history(const std::shared_ptr<Node>& node, const std::vector<Tensor*>& outputs);

// Note [Ops without a derivative]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An op without a formula must not hand back a result that silently lacks the gradient of an
// input that requires grad: the caller's parameters would just stop learning. The bindings'
// one entry point (Note [Call habits] in python/call_habits.cpp) therefore gives such a result
// a "NotImplemented" node, as PyTorch does for its ops without a derivative: the result
// requires grad, and backward through it raises "the derivative for 'op' is not implemented".
// Tensors that never required grad cost nothing: the check starts only once some tensor of
// the process has been made to require grad.
// kind: the error backward raises (RuntimeError, or NotImplementedError where PyTorch declares
// the op's derivative not implemented, as for unique).
Recorder record_not_implemented(const std::string& op, const std::vector<Tensor>& inputs,
                                ErrorKind kind = ErrorKind::Runtime);

}  // namespace genesis::autograd

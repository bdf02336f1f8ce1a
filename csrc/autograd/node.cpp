#include "autograd/node.h"

#include <atomic>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "core/caller_lock.h"
#include "core/errors.h"
#include "fusion/group.h"
#include "ops/convert.h"
#include "ops/elementwise.h"

namespace genesis::autograd {

namespace {
std::atomic<uint64_t> next_sequence_nr{0};

std::string describe(const Tensor& t) {
  std::string s = std::string(scalar_type_name(t.dtype())) + " tensor of shape [";
  for (size_t i = 0; i < t.sizes().size(); ++i) s += (i ? ", " : "") + std::to_string(t.sizes()[i]);
  return s + "]";
}
}  // namespace

void delete_node(Node* node) {
  // Nodes whose last reference went while a node was being destroyed on this thread.
  thread_local std::vector<Node*> queued;
  thread_local bool destroying = false;
  if (destroying) {
    queued.push_back(node);
    return;
  }
  destroying = true;
  delete node;
  while (!queued.empty()) {
    Node* next = queued.back();
    queued.pop_back();
    delete next;  // may queue more
  }
  destroying = false;
}

Node::Node()
    : sequence_nr(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)),
      compiled(fusion::region_active()) {}

SavedTensor::SavedTensor(const Tensor& t, bool is_output)
    : is_output_(is_output), was_defined_(t.defined()) {
  if (!t.defined()) return;
  version_ = t.storage().write_version();
  if (is_output) {
    data_ = detach(t);
  } else {
    data_ = t;
  }
  data_.storage().impl()->add_saved_uses(1);
}

SavedTensor::SavedTensor(const SavedTensor& o)
    : data_(o.data_),
      version_(o.version_),
      is_output_(o.is_output_),
      was_defined_(o.was_defined_),
      output_of_(o.output_of_),
      output_nr_(o.output_nr_) {
  if (data_.defined()) data_.storage().impl()->add_saved_uses(1);
}

SavedTensor::SavedTensor(SavedTensor&& o) noexcept { swap(o); }

SavedTensor& SavedTensor::operator=(SavedTensor o) noexcept {
  swap(o);
  return *this;
}

void SavedTensor::swap(SavedTensor& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(version_, o.version_);
  std::swap(is_output_, o.is_output_);
  std::swap(was_defined_, o.was_defined_);
  std::swap(output_of_, o.output_of_);
  std::swap(output_nr_, o.output_nr_);
}

void SavedTensor::release() {
  if (!data_.defined()) return;
  data_.storage().impl()->add_saved_uses(-1);
  data_ = Tensor();
}

bool export_read_only(const Tensor& t) {
  return !t.is_writable() || t.storage().is_saved_for_backward() || requires_grad(t);
}

SavedTensor SavedTensor::output(const Tensor& t, std::weak_ptr<Node> node, uint32_t output_nr) {
  SavedTensor s(t, true);
  s.output_of_ = std::move(node);
  s.output_nr_ = output_nr;
  return s;
}

void Recorder::save_output(const Tensor& t, uint32_t output_nr) const {
  node->saved.push_back(SavedTensor::output(t, node, output_nr));
}

Tensor SavedTensor::unpack(const Node& owner) const {
  if (!was_defined_) return Tensor();
  GENESIS_CHECK(
      data_.defined(), "backward",
      "trying to backward through the graph a second time (or directly access saved tensors "
      "after they have already been freed). Saved intermediate values of the graph are freed "
      "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
      "backward through the graph a second time or if you need to access saved tensors after "
      "calling backward.");
  uint64_t now = data_.storage().write_version();
  GENESIS_CHECK(
      now == version_, "backward",
      "one of the variables needed for gradient computation has been modified by an inplace "
      "operation: a ",
      describe(data_), " saved by ", owner.name(), " is at version ", now, "; expected version ",
      version_,
      " instead. Hint: the operation that wrote it ran after it was used; use an "
      "out-of-place op or clone() the tensor first.");
  if (!is_output_ || !GradMode::is_enabled()) return data_;
  // A double backward differentiates through the saved output: give it its history back.
  std::shared_ptr<Node> fn = output_of_.lock();
  if (fn == nullptr) return data_;
  Tensor out = detach(data_);
  AutogradMeta& m = meta_of(out);
  m.grad_fn = std::move(fn);
  m.output_nr = output_nr_;
  return out;
}

Grads FormulaNode::apply(Grads&& grads) {
  std::vector<Tensor> values;
  values.reserve(saved.size());
  for (const SavedTensor& s : saved) values.push_back(s.unpack(*this));
  return formula_(*this, grads, values);
}

void FormulaNode::release_saved() {
  for (SavedTensor& s : saved) s.release();
}

AccumulateGrad::AccumulateGrad(const Tensor& t) : leaf(t) {
  // One output (the engine sizes its buffer by output_info; it never fills a missing gradient
  // for a leaf's node, which runs only when one arrives), and no inputs.
  output_info.emplace_back();
}

namespace {
// Whether the engine's gradient can become Tensor.grad as it is: dense, owning its whole
// storage, and referenced by nothing else (another node's buffer, the caller's `gradient`).
bool can_take(const Tensor& g) {
  return g.is_contiguous() && g.storage_offset() == 0 && g.nbytes() == g.storage().nbytes() &&
         g.storage().use_count() == 1;
}
}  // namespace

Grads AccumulateGrad::apply(Grads&& grads) {
  Tensor g = std::move(grads[0]);
  grads.clear();
  AutogradMeta& m = meta_of(leaf);
  std::vector<std::pair<int64_t, GradHook>> hooks;
  {
    auto lock = lock_letting_caller_run(m.mutex);
    hooks = m.hooks;
  }
  for (const auto& h : hooks) {
    Tensor replaced = h.second(g);
    if (replaced.defined()) g = std::move(replaced);
  }
  bool create_graph = GradMode::is_enabled();
  std::vector<std::pair<int64_t, PostAccumulateHook>> after;
  {
    auto lock = lock_letting_caller_run(m.mutex);
    if (!m.grad.defined()) {
      // Under create_graph the gradient keeps its history, so it can be differentiated again.
      m.grad = create_graph ? g : can_take(g) ? detach(g) : ops::clone(g);
    } else if (create_graph || !m.grad.is_writable() || m.grad.has_shared_elements()) {
      m.grad = ag::binary(ops::BinaryOp::Add, m.grad, g, "backward");
    } else {
      ops::binary_(ops::BinaryOp::Add, m.grad, g, "backward");
    }
    after = m.post_accumulate_hooks;
  }
  // Outside the lock: a hook reads and may replace .grad (an optimizer step in backward, DDP).
  for (const auto& h : after) h.second(leaf);
  return {};
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = meta_of(t);
  auto lock = lock_letting_caller_run(m.mutex);
  std::shared_ptr<Node> acc = m.grad_accumulator.lock();
  if (acc == nullptr) {
    acc = make_node<AccumulateGrad>(t);
    m.grad_accumulator = acc;
  }
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  const auto& m = t.autograd_meta();
  if (m == nullptr) return Edge{};
  // A view whose root was written since its grad_fn was set: Note [Views and autograd].
  if (m->view_fn && m->view_version != t.storage().write_version()) ag::refresh_view(t);
  if (m->grad_fn != nullptr) return Edge{m->grad_fn, m->output_nr};
  if (m->requires_grad) return Edge{grad_accumulator(t), 0};
  return Edge{};
}

bool any_requires_grad(std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t != nullptr && requires_grad(*t)) return true;
  return false;
}

bool any_requires_grad(const std::vector<Tensor>& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (requires_grad(t)) return true;
  return false;
}

namespace {
void connect(FormulaNode& node, const Tensor* t) {
  bool usable = t != nullptr && t->defined();
  node.next_edges.push_back(usable ? gradient_edge(*t) : Edge{});
  node.input_info.push_back(usable ? TensorInfo(*t) : TensorInfo());
}
}  // namespace

Recorder record(const char* name, std::initializer_list<const Tensor*> inputs,
                FormulaNode::Formula formula) {
  if (!any_requires_grad(inputs)) return Recorder{};
  auto node = make_node<FormulaNode>(name, std::move(formula));
  node->next_edges.reserve(inputs.size());
  node->input_info.reserve(inputs.size());
  node->saved.reserve(inputs.size() + 1);  // most formulas save their inputs and maybe the output
  for (const Tensor* t : inputs) connect(*node, t);
  return Recorder{std::move(node)};
}

Recorder record(const char* name, const std::vector<Tensor>& inputs, FormulaNode::Formula formula) {
  if (!any_requires_grad(inputs)) return Recorder{};
  auto node = make_node<FormulaNode>(name, std::move(formula));
  for (const Tensor& t : inputs) connect(*node, &t);
  return Recorder{std::move(node)};
}

Recorder record_not_implemented(const std::string& op, const std::vector<Tensor>& inputs,
                                ErrorKind kind) {
  return record("NotImplemented", inputs,
                [op, kind](const FormulaNode&, const Grads&, const std::vector<Tensor>&) -> Grads {
                  GENESIS_FAIL(kind, "backward", "the derivative for '", op,
                               "' is not implemented");
                });
}

namespace {
void give_history(const std::shared_ptr<Node>& node, Tensor& out, uint32_t nr) {
  node->output_info.emplace_back(out);
  if (!is_differentiable_dtype(out.dtype())) return;
  // A fresh meta: the output may be a copy of an input (an op that returned its input), and
  // the input keeps its own history.
  auto m = std::make_shared<AutogradMeta>();
  m->grad_fn = node;
  m->output_nr = nr;
  out.set_autograd_meta(std::move(m));
}
}  // namespace

void set_history(const Recorder& r, std::initializer_list<Tensor*> outputs) {
  uint32_t nr = 0;
  for (Tensor* out : outputs) give_history(r.node, *out, nr++);
}

void set_history(const Recorder& r, const std::vector<Tensor*>& outputs) {
  set_history(r.node, outputs);
}

void set_history(const std::shared_ptr<Node>& node, const std::vector<Tensor*>& outputs) {
  uint32_t nr = 0;
  for (Tensor* out : outputs) give_history(node, *out, nr++);
}

}  // namespace genesis::autograd

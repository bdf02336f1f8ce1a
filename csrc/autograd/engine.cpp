#include "autograd/engine.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/ops.h"
#include "core/caller_lock.h"
#include "core/errors.h"
#include "fusion/group.h"
#include "ops/creation.h"

namespace genesis::autograd {

// Note [Backward engine]
// ~~~~~~~~~~~~~~~~~~~~~~
// One backward pass runs in the calling thread, in four steps:
// 1. discovery: every node reachable from the roots' edges;
// 2. when the caller names inputs (grad(), backward(inputs=)), which nodes lead to them: only
//    those run, and a node's gradient for a named non-leaf is taken from its input buffer;
// 3. dependencies: how many running nodes feed each node;
// 4. execution: a node runs when every node that feeds it has run, later-made nodes first. Its
//    output gradients were summed in its input buffer; missing ones (an output nobody used)
//    become zeros; each input gradient is brought to its input's shape (summing broadcast
//    dims), dtype and device, then added into the next node's buffer. Unless retain_graph,
//    each node drops its saved tensors as soon as it has run (Note [Saved tensors]).
// Grad mode is create_graph for the whole pass, so the formulas' ops record a graph of the
// gradient only when asked. Nothing waits for the device: every op is queued on the current
// stream, as the forward ops were. Independent graphs may run in several threads at once;
// AccumulateGrad locks the leaf's meta to add.

namespace {

struct Target {
  Node* node;
  uint32_t input_nr;
  size_t index;  // position in the caller's inputs
};

Tensor fitted(Tensor g, const TensorInfo& info) {
  if (g.sizes() != info.sizes) {
    g = ag::sum_to(g, info.sizes);
    if (g.sizes() != info.sizes) g = ag::reshape(g, info.sizes);
  }
  if (g.dtype() != info.dtype || g.device() != info.device)
    g = ag::to(g, info.dtype, info.device, /*copy=*/false);
  return g;
}

void add_into(Tensor& slot, Tensor g) {
  slot = slot.defined() ? ag::binary(ops::BinaryOp::Add, slot, g, "backward") : std::move(g);
}

// One backward pass: the state its phases (Note [Backward engine]) share.
struct Pass {
  const char* op = "backward";
  bool keep_graph = false, create_graph = false, capture = false;
  std::vector<Edge> root_edges;
  std::vector<Tensor> root_grads;
  std::vector<Target> targets;
  std::vector<std::shared_ptr<Node>> keep_alive;  // the targets' nodes
  std::unordered_map<Node*, std::vector<Node*>> successors;
  std::vector<Node*> order;  // discovery order
  std::unordered_set<Node*> target_nodes, runs;
  std::unordered_map<Node*, int64_t> deps;
  std::unordered_map<Node*, Grads> buffers;
  std::vector<Tensor> captured;
};

// The roots' edges and gradients (ones for a one-element root given none).
void seed_roots(Pass& p, const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots) {
  GENESIS_CHECK_VALUE(grad_roots.empty() || grad_roots.size() == roots.size(), p.op, "got ",
                      grad_roots.size(), " gradients for ", roots.size(), " tensors");
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    GENESIS_CHECK(requires_grad(r), p.op, "element ", i,
                  " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_roots.empty() ? Tensor() : grad_roots[i];
    if (!g.defined()) {
      GENESIS_CHECK(r.numel() == 1, p.op,
                    "grad can be implicitly created only for scalar outputs (got shape ",
                    shape_str(r.sizes()), ")");
      g = ops::full(r.sizes(), Scalar(1.0), r.dtype(), r.device());
    } else {
      GENESIS_CHECK(g.sizes() == r.sizes(), p.op, "Mismatch in shape: grad_output[", i,
                    "] has a shape of ", shape_str(g.sizes()), " and output[", i,
                    "] has a shape of ", shape_str(r.sizes()));
    }
    p.root_edges.push_back(gradient_edge(r));
    p.root_grads.push_back(std::move(g));
  }
}

// The named inputs: where their gradients are read (or accumulated).
void name_targets(Pass& p, const std::vector<Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    GENESIS_CHECK(requires_grad(t), p.op, "One of the differentiated Tensors (input ", i,
                  ") does not require grad");
    Edge e = gradient_edge(t);
    p.keep_alive.push_back(e.fn);
    p.targets.push_back(Target{e.fn.get(), e.input_nr, i});
    p.target_nodes.insert(e.fn.get());
  }
  p.captured.resize(inputs.size());
}

// 1. Discovery: every node reachable from the roots, with its successors.
void discover(Pass& p) {
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  for (const Edge& e : p.root_edges)
    if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    p.order.push_back(n);
    auto& next = p.successors[n];
    for (const Edge& e : n->next_edges) {
      if (e.fn == nullptr) continue;
      next.push_back(e.fn.get());
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    }
  }
}

// 2. Which nodes run. Without named inputs: all (backward). With them: the nodes with a path
// to a target; a target's own node runs only for backward(inputs=) of a leaf (to accumulate).
void select_running(Pass& p) {
  if (p.targets.empty()) {
    p.runs.insert(p.order.begin(), p.order.end());
    return;
  }
  // Whether a node leads to a target. A node's successors were made before it (its inputs'
  // nodes), except leaves' accumulators, which have no successors: so one pass in creation
  // order sees every successor's answer before the node's.
  std::unordered_map<Node*, bool> reaches;
  for (Node* n : p.order) reaches[n] = p.target_nodes.count(n) > 0;
  std::vector<Node*> oldest_first = p.order;
  std::sort(oldest_first.begin(), oldest_first.end(),
            [](Node* a, Node* b) { return a->sequence_nr < b->sequence_nr; });
  for (Node* n : oldest_first)
    for (Node* s : p.successors[n]) reaches[n] = reaches[n] || reaches[s];
  for (Node* n : p.order) {
    bool feeds = false;
    for (Node* s : p.successors[n]) feeds = feeds || reaches[s];
    bool accumulates =
        !p.capture && p.target_nodes.count(n) > 0 && dynamic_cast<AccumulateGrad*>(n) != nullptr;
    if (feeds || accumulates) p.runs.insert(n);
  }
}

// 3. Dependencies: edges from running nodes.
void count_dependencies(Pass& p) {
  for (Node* n : p.runs)
    for (Node* s : p.successors[n]) ++p.deps[s];
}

// Hooks of non-leaf tensors, then retain_grad, then the gradients of named inputs.
void run_hooks_and_capture(Pass& p, Node* n, Grads& grads) {
  for (const OutputHook& h : n->output_hooks) {
    Tensor& g = grads[h.output_nr];
    if (!g.defined()) continue;
    if (h.fn) {
      Tensor replaced = h.fn(g);
      if (replaced.defined()) g = std::move(replaced);
    } else if (auto m = h.retain.lock()) {
      auto lock = lock_letting_caller_run(m->mutex);
      m->grad = m->grad.defined() ? ag::binary(ops::BinaryOp::Add, m->grad, g, p.op)
                                  : (p.create_graph ? g : ag::clone(g));
    }
  }
  if (p.target_nodes.count(n))
    for (const Target& t : p.targets)
      if (t.node == n && grads[t.input_nr].defined())
        add_into(p.captured[t.index], grads[t.input_nr]);
}

// Runs node n on its summed output gradients (missing ones as zeros) and returns its input
// gradients; nothing when it does not run or no gradient reached it. `partial` (Note [A gradient
// summed where it is made]) goes to apply after the outputs' gradients when defined.
Grads apply_node(Pass& p, Node* n, Grads grads, Tensor partial = Tensor()) {
  bool any = false;
  for (const Tensor& g : grads) any = any || g.defined();
  if (!p.runs.count(n) || !any) return {};
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].defined()) {
      const TensorInfo& info = n->output_info[i];
      grads[i] = ops::full(info.sizes, Scalar(0.0), info.dtype, info.device);
    }
  if (partial.defined()) grads.push_back(std::move(partial));
  Grads outs = n->apply(std::move(grads));
  if (!p.keep_graph) n->release_saved();
  GENESIS_CHECK(outs.size() == n->next_edges.size(), p.op, "function ", n->name(), " returned ",
                outs.size(), " gradients, expected ", n->next_edges.size());
  return outs;
}

// Note [A gradient summed where it is made]
// A tensor used twice gets two gradients, which the engine adds (add_into): in a transformer's
// residual stream x feeds both `x + f(norm(x))` and the norm, so each block's backward pays a
// pass that reads two float32 gradients and writes their sum, after the norm's backward kernel
// wrote one of them. When a node that can (Node::sums_partial: the fused layer norm and RMS
// norm) is about to run and the gradient for its input 0 already holds a partial sum of the
// right sizes, dtype and device, the engine hands that partial to the node instead (one more
// gradient after its outputs') and the node adds it as it writes its own (the norm kernel
// reads it beside x); the buffer then takes the node's result as the whole sum. The sum is eager's
// bits: both terms rounded to the dtype, added in float32 (float64 for double) and rounded once,
// which is what add_into's addition computes (and addition is commutative). Under create_graph the
// engine adds as before (the recorded backward has no such kernel).
Tensor take_partial(Pass& p, Node* n) {
  if (n->next_edges.empty() || n->next_edges[0].fn == nullptr || p.create_graph) return Tensor();
  const Edge& e = n->next_edges[0];
  auto it = p.buffers.find(e.fn.get());
  if (it == p.buffers.end() || e.input_nr >= it->second.size()) return Tensor();
  Tensor& slot = it->second[e.input_nr];
  const TensorInfo& info = n->input_info[0];
  if (!slot.defined() || slot.sizes() != info.sizes || slot.dtype() != info.dtype ||
      slot.device() != info.device)
    return Tensor();
  Tensor partial = std::move(slot);
  slot = Tensor();
  return partial;
}

// Note [A gradient widened where it is used]
// A float32 tensor cast to 16 bits (autocast's cast of a layer norm's output before a linear
// layer) gets back a 16-bit gradient, which fitted() widens to float32: a pass that reads 2 bytes
// an item and writes 4, before the norm's backward reads the 4 again. When the node that made
// the float32 tensor can read the narrow gradient itself (Node::reads_narrow_grads: the fused
// layer norm and RMS norm) and this is the whole gradient it will get for that output (its
// buffer slot is empty and no other running node feeds it), the engine leaves the gradient
// narrow and the node widens it as it reads it: the same values, since float16 and bfloat16
// widen to float32 exactly. Not when something looks at the gradient before the node runs (its
// output hooks, retain_grad, grad() of that output), nor under create_graph (the recorded
// backward's dtype rules stay eager's).
bool keeps_narrow(const Pass& p, Node* s, const Grads& buffer, uint32_t slot, const Tensor& g,
                  const TensorInfo& info) {
  if (!s->reads_narrow_grads || p.create_graph || !s->output_hooks.empty() ||
      p.target_nodes.count(s) > 0)
    return false;
  auto left = p.deps.find(s);
  if (left == p.deps.end() || left->second != 1 || buffer[slot].defined()) return false;
  return info.dtype == ScalarType::Float32 &&
         (g.dtype() == ScalarType::BFloat16 || g.dtype() == ScalarType::Float16) &&
         g.sizes() == info.sizes && g.device() == info.device;
}

// 4. Execution: a node runs when every running node that feeds it has, later-made nodes first;
// each input gradient, fitted to its input, is added into the next node's buffer.
void execute(Pass& p) {
  for (size_t i = 0; i < p.root_edges.size(); ++i) {
    Node* n = p.root_edges[i].fn.get();
    Grads& b = p.buffers[n];
    b.resize(n->output_info.size());
    add_into(b[p.root_edges[i].input_nr], p.root_grads[i]);
  }
  auto later_first = [](Node* a, Node* b) { return a->sequence_nr < b->sequence_nr; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
  {
    std::unordered_set<Node*> queued;
    for (const Edge& e : p.root_edges)
      if (p.deps[e.fn.get()] == 0 && queued.insert(e.fn.get()).second) ready.push(e.fn.get());
  }
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    Grads grads = std::move(p.buffers[n]);
    p.buffers.erase(n);
    grads.resize(n->output_info.size());
    run_hooks_and_capture(p, n, grads);
    Tensor partial = n->sums_partial && p.runs.count(n) ? take_partial(p, n) : Tensor();
    const bool handed = partial.defined();
    Grads outs = apply_node(p, n, std::move(grads), handed ? partial : Tensor());
    // A node that did not run (no gradient reached it) leaves the partial where it was.
    if (handed && (outs.empty() || !outs[0].defined()))
      add_into(p.buffers[n->next_edges[0].fn.get()][n->next_edges[0].input_nr], partial);
    if (!p.runs.count(n)) continue;
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (e.fn == nullptr) continue;
      Node* s = e.fn.get();
      if (i < outs.size() && outs[i].defined()) {
        Grads& b = p.buffers[s];
        b.resize(s->output_info.size());
        if (keeps_narrow(p, s, b, e.input_nr, outs[i], n->input_info[i]))
          b[e.input_nr] = std::move(outs[i]);
        else
          add_into(b[e.input_nr], fitted(std::move(outs[i]), n->input_info[i]));
      }
      if (--p.deps[s] == 0) ready.push(s);
    }
  }
}

std::vector<Tensor> run(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
                        const std::vector<Tensor>& inputs, bool keep_graph, bool create_graph,
                        bool capture, const char* op) {
  Pass p;
  p.op = op;
  p.keep_graph = keep_graph;
  p.create_graph = create_graph;
  p.capture = capture;
  seed_roots(p, roots, grad_roots);
  GradModeGuard mode(create_graph);
  name_targets(p, inputs);
  discover(p);
  select_running(p);
  count_dependencies(p);
  // A graph with nodes recorded in a compiled region (a compiled model under an eager loss) is
  // differentiated in one (genesis.compile's backward).
  const bool compiled =
      std::any_of(p.order.begin(), p.order.end(), [](const Node* n) { return n->compiled; });
  if (compiled) fusion::enter_region();
  try {
    execute(p);
  } catch (...) {
    if (compiled) {
      try {
        fusion::exit_region();  // runs what was deferred; the pass's own error is the one raised
      } catch (...) {
      }
    }
    throw;
  }
  if (compiled) fusion::exit_region();
  return std::move(p.captured);
}

}  // namespace

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
              bool keep_graph, bool create_graph, const std::vector<Tensor>& inputs) {
  const char* op = "backward";
  std::vector<Tensor> got =
      run(roots, grad_roots, inputs, keep_graph, create_graph, /*capture=*/false, op);
  // backward(inputs=) of a non-leaf: its gradient goes to its .grad, as for a leaf.
  GradModeGuard mode(create_graph);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (is_leaf(inputs[i]) || !got[i].defined()) continue;
    AutogradMeta& m = meta_of(inputs[i]);
    auto lock = lock_letting_caller_run(m.mutex);
    m.grad = m.grad.defined() ? ag::binary(ops::BinaryOp::Add, m.grad, got[i], op) : got[i];
  }
}

std::vector<Tensor> grad(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
                         const std::vector<Tensor>& inputs, bool keep_graph, bool create_graph,
                         bool allow_unused) {
  const char* op = "grad";
  GENESIS_CHECK(!inputs.empty(), op, "grad requires at least one input");
  std::vector<Tensor> got =
      run(roots, grad_roots, inputs, keep_graph, create_graph, /*capture=*/true, op);
  for (size_t i = 0; i < got.size(); ++i) {
    GENESIS_CHECK(allow_unused || got[i].defined(), op,
                  "One of the differentiated Tensors "
                  "appears to not have been used in the graph. Set allow_unused=True if this is "
                  "the desired behavior.");
    if (got[i].defined() && !create_graph) got[i] = detach(got[i]);
  }
  return got;
}

}  // namespace genesis::autograd

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

std::vector<Tensor> run(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
                        const std::vector<Tensor>& inputs, bool keep_graph, bool create_graph,
                        bool capture, const char* op) {
  GENESIS_CHECK_VALUE(grad_roots.empty() || grad_roots.size() == roots.size(), op, "got ",
                      grad_roots.size(), " gradients for ", roots.size(), " tensors");
  GradModeGuard mode(create_graph);

  // The roots' edges and gradients.
  std::vector<Edge> root_edges;
  std::vector<Tensor> root_grads;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    GENESIS_CHECK(requires_grad(r), op, "element ", i,
                  " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_roots.empty() ? Tensor() : grad_roots[i];
    if (!g.defined()) {
      GENESIS_CHECK(r.numel() == 1, op,
                    "grad can be implicitly created only for scalar outputs (got shape ",
                    shape_str(r.sizes()), ")");
      g = ops::full(r.sizes(), Scalar(1.0), r.dtype(), r.device());
    } else {
      GENESIS_CHECK(g.sizes() == r.sizes(), op, "Mismatch in shape: grad_output[", i,
                    "] has a shape of ", shape_str(g.sizes()), " and output[", i,
                    "] has a shape of ", shape_str(r.sizes()));
    }
    root_edges.push_back(gradient_edge(r));
    root_grads.push_back(std::move(g));
  }

  // The named inputs: where their gradients are read (or accumulated).
  std::vector<Target> targets;
  std::vector<std::shared_ptr<Node>> keep_alive;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    GENESIS_CHECK(requires_grad(t), op, "One of the differentiated Tensors (input ", i,
                  ") does not require grad");
    Edge e = gradient_edge(t);
    keep_alive.push_back(e.fn);
    targets.push_back(Target{e.fn.get(), e.input_nr, i});
  }

  // 1. Discovery.
  std::unordered_map<Node*, std::vector<Node*>> successors;
  std::vector<Node*> order;  // discovery order
  {
    std::vector<Node*> stack;
    std::unordered_set<Node*> seen;
    for (const Edge& e : root_edges)
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      order.push_back(n);
      auto& next = successors[n];
      for (const Edge& e : n->next_edges) {
        if (e.fn == nullptr) continue;
        next.push_back(e.fn.get());
        if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
      }
    }
  }

  // 2. Which nodes run. Without named inputs: all (backward). With them: the nodes with a path
  // to a target; a target's own node runs only for backward(inputs=) of a leaf (to accumulate).
  std::unordered_set<Node*> target_nodes, runs;
  for (const Target& t : targets) target_nodes.insert(t.node);
  if (targets.empty()) {
    runs.insert(order.begin(), order.end());
  } else {
    // Whether a node leads to a target. A node's successors were made before it (its inputs'
    // nodes), except leaves' accumulators, which have no successors: so one pass in creation
    // order sees every successor's answer before the node's.
    std::unordered_map<Node*, bool> reaches;
    for (Node* n : order) reaches[n] = target_nodes.count(n) > 0;
    std::vector<Node*> oldest_first = order;
    std::sort(oldest_first.begin(), oldest_first.end(),
              [](Node* a, Node* b) { return a->sequence_nr < b->sequence_nr; });
    for (Node* n : oldest_first)
      for (Node* s : successors[n]) reaches[n] = reaches[n] || reaches[s];
    for (Node* n : order) {
      bool feeds = false;
      for (Node* s : successors[n]) feeds = feeds || reaches[s];
      bool accumulates =
          !capture && target_nodes.count(n) > 0 && dynamic_cast<AccumulateGrad*>(n) != nullptr;
      if (feeds || accumulates) runs.insert(n);
    }
  }

  // 3. Dependencies: edges from running nodes.
  std::unordered_map<Node*, int64_t> deps;
  for (Node* n : runs)
    for (Node* s : successors[n]) ++deps[s];

  // 4. Execution.
  std::unordered_map<Node*, Grads> buffers;
  for (size_t i = 0; i < root_edges.size(); ++i) {
    Node* n = root_edges[i].fn.get();
    Grads& b = buffers[n];
    b.resize(n->output_info.size());
    add_into(b[root_edges[i].input_nr], root_grads[i]);
  }
  auto later_first = [](Node* a, Node* b) { return a->sequence_nr < b->sequence_nr; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
  {
    std::unordered_set<Node*> queued;
    for (const Edge& e : root_edges)
      if (deps[e.fn.get()] == 0 && queued.insert(e.fn.get()).second) ready.push(e.fn.get());
  }

  std::vector<Tensor> captured(inputs.size());
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    Grads grads = std::move(buffers[n]);
    buffers.erase(n);
    grads.resize(n->output_info.size());

    // Hooks of non-leaf tensors, then retain_grad.
    for (const OutputHook& h : n->output_hooks) {
      Tensor& g = grads[h.output_nr];
      if (!g.defined()) continue;
      if (h.fn) {
        Tensor replaced = h.fn(g);
        if (replaced.defined()) g = std::move(replaced);
      } else if (auto m = h.retain.lock()) {
        auto lock = lock_letting_caller_run(m->mutex);
        m->grad = m->grad.defined() ? ag::binary(ops::BinaryOp::Add, m->grad, g, op)
                                    : (create_graph ? g : ag::clone(g));
      }
    }
    if (target_nodes.count(n))
      for (const Target& t : targets)
        if (t.node == n && grads[t.input_nr].defined()) {
          Tensor& c = captured[t.index];
          add_into(c, grads[t.input_nr]);
        }

    bool any = false;
    for (const Tensor& g : grads) any = any || g.defined();
    Grads outs;
    if (runs.count(n) && any) {
      for (size_t i = 0; i < grads.size(); ++i)
        if (!grads[i].defined()) {
          const TensorInfo& info = n->output_info[i];
          grads[i] = ops::full(info.sizes, Scalar(0.0), info.dtype, info.device);
        }
      outs = n->apply(std::move(grads));
      if (!keep_graph) n->release_saved();
      GENESIS_CHECK(outs.size() == n->next_edges.size(), op, "function ", n->name(), " returned ",
                    outs.size(), " gradients, expected ", n->next_edges.size());
    }
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (e.fn == nullptr || !runs.count(n)) continue;
      Node* s = e.fn.get();
      if (i < outs.size() && outs[i].defined()) {
        Grads& b = buffers[s];
        b.resize(s->output_info.size());
        add_into(b[e.input_nr], fitted(std::move(outs[i]), n->input_info[i]));
      }
      if (--deps[s] == 0) ready.push(s);
    }
  }
  return captured;
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

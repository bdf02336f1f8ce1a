#pragma once
// What autograd knows about one tensor, and the questions ops ask about it.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace genesis::autograd {
class Node;
}

namespace genesis {

// A hook on a tensor's gradient: returns a replacement, or an undefined Tensor to keep it.
using GradHook = std::function<Tensor(const Tensor&)>;
// A hook that runs after a leaf's gradient was added into its .grad, given the leaf.
using PostAccumulateHook = std::function<void(const Tensor&)>;

// The recorded view ops that make a view again from the root of its chain of views (Note [Views
// and autograd] in autograd/views.cpp), newest last: a persistent list, so a view of a view
// shares its base's steps (one step more per view, not a copy of the chain), and a chain of any
// length is applied, and destroyed, in a loop rather than by recursion (Note [Iterative graph
// teardown] in autograd/node.h).
struct ViewSteps {
  ViewSteps(std::function<Tensor(const Tensor&)> again, std::shared_ptr<const ViewSteps> before)
      : again(std::move(again)), before(std::move(before)) {}
  ~ViewSteps();
  ViewSteps(const ViewSteps&) = delete;
  ViewSteps& operator=(const ViewSteps&) = delete;
  // The view of `root` that these steps make.
  Tensor operator()(const Tensor& root) const;

  std::function<Tensor(const Tensor&)> again;  // this step: the view op, recorded
  std::shared_ptr<const ViewSteps> before;     // the steps from the root to this step's input
};

// Note [Autograd meta]
// ~~~~~~~~~~~~~~~~~~~~
// A Tensor carries a shared pointer to its AutogradMeta, null until the tensor takes part in
// autograd, so a tensor that never requires grad pays one null test per op. Copies of a Tensor
// share the meta (they are the same tensor to autograd), as PyTorch's Tensors share a
// TensorImpl. A leaf has requires_grad set and no grad_fn; a result of a recorded op has the
// node that made it (grad_fn) and which of that node's outputs it is (output_nr). A leaf's
// AccumulateGrad node is made on first use and held weakly here (the graph holds it), so a
// leaf and its graph never form a cycle. Hooks and retain_grad of a non-leaf live on its
// grad_fn (Node::tensor_hooks), where the engine meets its gradient.
struct AutogradMeta {
  bool requires_grad = false;  // a leaf's flag; a non-leaf requires grad through grad_fn
  std::shared_ptr<autograd::Node> grad_fn;
  uint32_t output_nr = 0;
  std::weak_ptr<autograd::Node> grad_accumulator;
  Tensor grad;  // undefined: None
  bool retains_grad = false;
  std::vector<std::pair<int64_t, GradHook>> hooks;  // a leaf's hooks, by handle id
  std::vector<std::pair<int64_t, PostAccumulateHook>> post_accumulate_hooks;  // a leaf's
  // For a view made by a recorded view op (Note [Views and autograd]): the tensor its chain of
  // views started from, the recorded ops that make it from there again, and the storage's write
  // version when its grad_fn was last set.
  Tensor view_base;
  std::shared_ptr<const ViewSteps> view_fn;
  uint64_t view_version = 0;
  // A view made under no_grad of a tensor in a graph (or a view of such a view): an in-place
  // op on it with grad mode on is refused (Note [Views made under no_grad]).
  bool view_made_without_grad = false;
  // One of the views a single node made (split's pieces: Note [Split as one node]), or a view of
  // one: the node's name and the output's place; an in-place op on it is refused, as PyTorch's.
  const char* multi_output_node = nullptr;
  int multi_output_index = 0;
  std::mutex mutex;  // guards grad while backward passes in several threads accumulate
};

}  // namespace genesis

namespace genesis::autograd {

// Whether `t` takes part in a graph: a leaf that requires grad, or a result with a grad_fn.
inline bool requires_grad(const Tensor& t) {
  const auto& m = t.autograd_meta();
  return m != nullptr && (m->requires_grad || m->grad_fn != nullptr);
}
inline bool is_leaf(const Tensor& t) {
  const auto& m = t.autograd_meta();
  return m == nullptr || m->grad_fn == nullptr;
}
// The meta of `t`, made when missing.
AutogradMeta& meta_of(const Tensor& t);
// Whether a tensor of `dtype` can require grad (the floating dtypes; genesis has no complex).
bool is_differentiable_dtype(ScalarType dtype);
// Tensor.requires_grad_(flag): only on leaves, only for floating dtypes (PyTorch's errors).
void set_requires_grad(const Tensor& t, bool flag);
// Whether any tensor of the process has been made to require grad (Note [Ops without a
// derivative] in autograd/node.h).
bool grad_ever_required();
// The same memory with no autograd history (Tensor.detach()).
Tensor detach(const Tensor& t);
// Tensor.grad and its setter; set_grad checks shape, dtype and device as PyTorch does.
Tensor grad(const Tensor& t);
void set_grad(const Tensor& t, const Tensor& g);
const std::shared_ptr<Node>& grad_fn(const Tensor& t);
void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);
// Tensor.register_hook: the id that removes it again (remove_hook).
int64_t register_hook(const Tensor& t, GradHook hook);
void remove_hook(const Tensor& t, int64_t id);
// Tensor.register_post_accumulate_grad_hook (a leaf only): removed by remove_hook too.
int64_t register_post_accumulate_grad_hook(const Tensor& t, PostAccumulateHook hook);
// Tensor._version: the write version of its storage (Note [Write versions]).
uint64_t version(const Tensor& t);

}  // namespace genesis::autograd

#include "autograd/meta.h"

#include <atomic>
#include <vector>

#include "autograd/node.h"
#include "core/caller_lock.h"
#include "core/errors.h"

namespace genesis {

ViewSteps::~ViewSteps() {
  // Unlink the steps only this one holds one at a time, so a long chain is no deep recursion.
  std::shared_ptr<const ViewSteps> p = std::move(before);
  while (p != nullptr && p.use_count() == 1) {
    std::shared_ptr<const ViewSteps> next = std::move(const_cast<ViewSteps&>(*p).before);
    p = std::move(next);
  }
}

Tensor ViewSteps::operator()(const Tensor& root) const {
  std::vector<const ViewSteps*> steps;
  for (const ViewSteps* s = this; s != nullptr; s = s->before.get()) steps.push_back(s);
  Tensor t = root;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) t = (*it)->again(t);
  return t;
}

}  // namespace genesis

namespace genesis::autograd {

namespace {
std::atomic<bool> some_tensor_required_grad{false};
void note_grad_required() { some_tensor_required_grad.store(true, std::memory_order_relaxed); }
}  // namespace

bool grad_ever_required() { return some_tensor_required_grad.load(std::memory_order_relaxed); }

AutogradMeta& meta_of(const Tensor& t) {
  if (t.autograd_meta() == nullptr) t.set_autograd_meta(std::make_shared<AutogradMeta>());
  return *t.autograd_meta();
}

bool is_differentiable_dtype(ScalarType dtype) { return is_floating_point(dtype); }

void set_requires_grad(const Tensor& t, bool flag) {
  const char* op = "requires_grad_";
  // requires_grad_(True) of a non-leaf changes nothing (it requires grad already).
  GENESIS_CHECK(is_leaf(t) || flag, op,
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().");
  GENESIS_CHECK(!flag || is_differentiable_dtype(t.dtype()), op,
                "only Tensors of floating point and complex dtype can require gradients (got ",
                scalar_type_name(t.dtype()), ")");
  if (!is_leaf(t) || (!flag && t.autograd_meta() == nullptr)) return;
  if (flag) note_grad_required();
  meta_of(t).requires_grad = flag;
}

Tensor detach(const Tensor& t) {
  return Tensor(t.storage(), t.sizes(), t.strides(), t.storage_offset(), t.dtype());
}

Tensor grad(const Tensor& t) {
  const auto& m = t.autograd_meta();
  if (m == nullptr) return Tensor();
  auto lock = lock_letting_caller_run(m->mutex);
  return m->grad;
}

void set_grad(const Tensor& t, const Tensor& g) {
  const char* op = "grad";
  if (!g.defined()) {
    if (t.autograd_meta() == nullptr) return;
    AutogradMeta& m = meta_of(t);
    auto lock = lock_letting_caller_run(m.mutex);
    m.grad = Tensor();
    return;
  }
  GENESIS_CHECK(g.dtype() == t.dtype(), op, "assigned grad has data of a different type (",
                scalar_type_name(g.dtype()), ", the tensor is ", scalar_type_name(t.dtype()), ")");
  GENESIS_CHECK(g.device() == t.device(), op,
                "assigned grad has data located on a different device (", g.device().str(),
                ", the tensor is on ", t.device().str(), ")");
  GENESIS_CHECK(g.sizes() == t.sizes(), op, "assigned grad has data of a different size (",
                shape_str(g.sizes()), ", the tensor is ", shape_str(t.sizes()), ")");
  AutogradMeta& m = meta_of(t);
  auto lock = lock_letting_caller_run(m.mutex);
  m.grad = g;
}

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> none;
  const auto& m = t.autograd_meta();
  return m == nullptr ? none : m->grad_fn;
}

namespace {
std::atomic<int64_t> next_hook_id{1};
}

void retain_grad(const Tensor& t) {
  const char* op = "retain_grad";
  GENESIS_CHECK(requires_grad(t), op, "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = meta_of(t);
  if (m.grad_fn == nullptr || m.retains_grad) return;  // a leaf keeps its grad anyway
  m.retains_grad = true;
  OutputHook h;
  h.id = next_hook_id.fetch_add(1);
  h.output_nr = m.output_nr;
  h.retain = t.autograd_meta();
  m.grad_fn->output_hooks.push_back(std::move(h));
}

bool retains_grad(const Tensor& t) {
  const auto& m = t.autograd_meta();
  return m != nullptr && m->retains_grad;
}

int64_t register_hook(const Tensor& t, GradHook hook) {
  const char* op = "register_hook";
  GENESIS_CHECK(requires_grad(t), op,
                "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = meta_of(t);
  int64_t id = next_hook_id.fetch_add(1);
  if (m.grad_fn == nullptr) {
    auto lock = lock_letting_caller_run(m.mutex);  // AccumulateGrad copies them under it
    m.hooks.emplace_back(id, std::move(hook));
  } else {
    OutputHook h;
    h.id = id;
    h.output_nr = m.output_nr;
    h.fn = std::move(hook);
    m.grad_fn->output_hooks.push_back(std::move(h));
  }
  return id;
}

int64_t register_post_accumulate_grad_hook(const Tensor& t, PostAccumulateHook hook) {
  const char* op = "register_post_accumulate_grad_hook";
  GENESIS_CHECK(requires_grad(t), op,
                "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = meta_of(t);
  GENESIS_CHECK(m.grad_fn == nullptr, op,
                "post accumulate grad hooks cannot be registered on non-leaf tensors");
  int64_t id = next_hook_id.fetch_add(1);
  auto lock = lock_letting_caller_run(m.mutex);  // AccumulateGrad copies them under it
  m.post_accumulate_hooks.emplace_back(id, std::move(hook));
  return id;
}

void remove_hook(const Tensor& t, int64_t id) {
  const auto& m = t.autograd_meta();
  if (m == nullptr) return;
  {
    auto lock = lock_letting_caller_run(m->mutex);
    std::erase_if(m->hooks, [id](const auto& h) { return h.first == id; });
    std::erase_if(m->post_accumulate_hooks, [id](const auto& h) { return h.first == id; });
  }
  if (m->grad_fn != nullptr)
    std::erase_if(m->grad_fn->output_hooks, [id](const OutputHook& h) { return h.id == id; });
}

uint64_t version(const Tensor& t) { return t.storage().write_version(); }

}  // namespace genesis::autograd

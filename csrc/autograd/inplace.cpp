// In-place ops under autograd (Note [In-place ops and autograd]).
#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"
#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/elementwise.h"

namespace genesis::ag {

// Note [In-place ops and autograd]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// While grad mode is on, an in-place op on a tensor that requires grad (or with an operand
// that does) is:
// - an error for a leaf (its .grad would not be the gradient of what it held), and for a view
//   of one, as in PyTorch;
// - for a tensor that owns its storage, the out-of-place op on a copy of the old values, whose
//   result is written back and whose node becomes the tensor's grad_fn (its history is
//   rebased); the copy is what the node saves, so the write does not trip the version check;
// - for a recorded view (Note [Views and autograd]), the same on its root: the op runs on the
//   view's place of a copy of the root, a CopySlices node puts the result back into that copy
//   (its gradient: the view's place of g to the op, the rest to the root's old history), the
//   root takes the result and that history, and the view a fresh grad_fn from the root's;
// - an error for a view autograd did not record (made while nothing required grad, or under
//   no_grad: Note [Views made under no_grad]), and for the in-place ops without a formula. Those
//   are caught where every write is checked, check_writable (core/tensor.h), through the write
//   guard install_write_guard() puts there.
// The root is copied whole once per in-place op on a view: correct first, a narrower copy is
// possible later. Under no_grad every in-place op runs as before (`w -= lr * w.grad`).

namespace {
// Whether `t` may be a view of a larger tensor: anything not covering its whole storage.
bool may_be_view(const Tensor& t) {
  const auto& m = t.autograd_meta();
  if (m != nullptr && m->view_base.defined()) return true;
  return t.storage_offset() != 0 || !t.is_contiguous() || t.nbytes() != t.storage().nbytes();
}

void check_not_a_no_grad_view(const Tensor& self, const char* op) {
  const auto& m = self.autograd_meta();
  GENESIS_CHECK(m == nullptr || !m->view_made_without_grad, op,
                "a view was created in no_grad mode and is being modified inplace with grad mode "
                "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
                "You can clarify your code by moving both the view and the inplace either both "
                "inside the no_grad block (if you don't want the inplace to be tracked) or both "
                "outside (if you want the inplace to be tracked).");
}

void check(const Tensor& self, bool other_requires_grad, bool has_formula, const char* op) {
  check_not_a_no_grad_view(self, op);
  bool self_rg = autograd::requires_grad(self);
  GENESIS_CHECK(!(self_rg && autograd::is_leaf(self)), op,
                "a leaf Variable that requires grad is being used in an in-place operation.");
  const auto& meta = self.autograd_meta();
  if (self_rg && meta != nullptr && meta->multi_output_node != nullptr)  // Note [Split as one node]
    GENESIS_CHECK(false, op, "Output ", meta->multi_output_index, " of ", meta->multi_output_node,
                  " is a view and is being modified inplace. This view is the output of a "
                  "function that returns multiple views. Such functions do not allow the output "
                  "views to be modified inplace. You should replace the inplace operation by an "
                  "out-of-place one.");
  if (!self_rg && !other_requires_grad) return;
  bool recorded_view = meta != nullptr && meta->view_fn;
  if (recorded_view) {
    const Tensor& root = meta->view_base;
    GENESIS_CHECK(!(autograd::requires_grad(root) && autograd::is_leaf(root)), op,
                  "a view of a leaf Variable that requires grad is being used in an in-place "
                  "operation.");
  }
  GENESIS_CHECK(has_formula, op,
                "this in-place operation on a tensor that requires grad (or with an operand "
                "that does) is not differentiable in genesis yet; use the out-of-place form");
  if (recorded_view) return;
  GENESIS_CHECK(!may_be_view(self), op,
                "in-place operations on views that autograd did not record (made while "
                "nothing required grad) are not supported; use the out-of-place form (or "
                "clone() the view first)");
}

// A copy of self's values that stands for self's old history (a fresh meta: self's own is
// about to change, and the node must not see it, or it would point at itself).
Tensor old_values(const Tensor& self) {
  Tensor copy = ops::clone(self);
  const auto& m = self.autograd_meta();
  if (m != nullptr && m->grad_fn != nullptr) {
    auto fresh = std::make_shared<AutogradMeta>();
    fresh->grad_fn = m->grad_fn;
    fresh->output_nr = m->output_nr;
    copy.set_autograd_meta(std::move(fresh));
  }
  return copy;
}

// Writes `result` into self and gives self the result's history.
void take_result(const Tensor& self, const Tensor& result, const char* op) {
  {
    autograd::GradModeGuard off(false);
    ops::copy_(self, result);
  }
  AutogradMeta& m = autograd::meta_of(self);
  const auto& rm = result.autograd_meta();
  m.grad_fn = rm != nullptr ? rm->grad_fn : nullptr;
  m.output_nr = rm != nullptr ? rm->output_nr : 0;
  m.requires_grad = false;
}
}  // namespace

namespace {

// The root's copy `base` with the view's place (view_fn) holding `values`: CopySlices.
Tensor copy_slices(const Tensor& base, const std::function<Tensor(const Tensor&)>& view_fn,
                   const Tensor& values) {
  Tensor out = ops::clone(base);
  {
    autograd::GradModeGuard off(false);
    ops::copy_(view_fn(out), values);
  }
  Shape view_sizes = values.sizes();
  Recorder r = record(
      "CopySlices", {&base, &values},
      [view_fn, view_sizes](const FormulaNode& n, const Grads& g, const std::vector<Tensor>&) {
        Grads r(2);
        if (n.needs_grad(0)) {
          Tensor zeros = ops::full(view_sizes, Scalar(0.0), g[0].dtype(), g[0].device());
          r[0] = copy_slices(g[0], view_fn, zeros);
        }
        if (n.needs_grad(1)) r[1] = view_fn(g[0]);
        return r;
      });
  if (r) set_history(r, {&out});
  return out;
}

// self (requires grad, or an operand does) <- op(self), through the out-of-place `op`.
void rebase(const Tensor& self, bool other_rg, const char* name,
            const std::function<Tensor(const Tensor&)>& op) {
  check(self, other_rg, true, name);
  auto cast_check = [&](const Tensor& result) {
    GENESIS_CHECK(ops::can_cast(result.dtype(), self.dtype()), name, "result type ",
                  scalar_type_name(result.dtype()), " can't be cast to the desired output type ",
                  scalar_type_name(self.dtype()));
  };
  const auto& m = self.autograd_meta();
  if (m == nullptr || !m->view_fn) {
    Tensor result = op(old_values(self));
    cast_check(result);
    take_result(self, result, name);
    return;
  }
  Tensor root = m->view_base;
  std::function<Tensor(const Tensor&)> view_fn = [steps = m->view_fn](const Tensor& r) {
    return (*steps)(r);
  };
  Tensor old_root = old_values(root);
  Tensor result = op(view_fn(old_root));
  cast_check(result);
  take_result(root, copy_slices(old_root, view_fn, result), name);
  refresh_view(self);
}

}  // namespace

void check_inplace(const Tensor& self, const char* op) {
  if (!autograd::GradMode::is_enabled()) return;
  check_not_a_no_grad_view(self, op);
  if (!autograd::requires_grad(self)) return;
  check(self, false, false, op);
}

void check_untracked_source(const Tensor& src, const char* op) {
  GENESIS_CHECK(!autograd::GradMode::is_enabled() || !autograd::requires_grad(src), op,
                "writing a tensor that requires grad into another is not differentiable in "
                "genesis yet; use an out-of-place op, or write src.detach() under no_grad()");
}

void install_write_guard() { set_write_guard(&check_inplace); }

void binary_(BinaryOp op, const Tensor& self, const Operand& other, const char* name) {
  bool other_rg = !other.is_scalar() && autograd::requires_grad(other.tensor());
  if (!autograd::GradMode::is_enabled() || !(autograd::requires_grad(self) || other_rg)) {
    ops::binary_(op, self, other, name);
    return;
  }
  rebase(self, other_rg, name, [&](const Tensor& old) { return ag::binary(op, old, other, name); });
}

void apply_inplace(const Tensor& self, std::initializer_list<const Tensor*> others,
                   const char* name, const std::function<Tensor(const Tensor&)>& op,
                   const std::function<void()>& op_) {
  bool other_rg = false;
  for (const Tensor* o : others)
    other_rg = other_rg || (o != nullptr && autograd::requires_grad(*o));
  if (!autograd::GradMode::is_enabled() || !(autograd::requires_grad(self) || other_rg)) {
    op_();
    return;
  }
  rebase(self, other_rg, name, op);
}

void unary_(UnaryOp op, const Tensor& self, const char* name) {
  if (!autograd::GradMode::is_enabled() || !autograd::requires_grad(self)) {
    ops::unary_(op, self, name);
    return;
  }
  rebase(self, false, name, [&](const Tensor& old) { return ag::unary(op, old, name); });
}

}  // namespace genesis::ag

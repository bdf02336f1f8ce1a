// Backward formulas of copies and casts: the gradient passes through, and the engine brings it
// back to the input's dtype and device (Note [Backward engine]).
#include "ops/convert.h"
#include "autograd/formula_helpers.h"

namespace genesis::ag {

Tensor pass_through(const char* name, const Tensor& t, Tensor out) {
  // An op that gave back its input (no copy was needed) is the input itself, as in PyTorch.
  if (out.is_same_view(t) || !autograd::is_differentiable_dtype(out.dtype())) return out;
  Recorder r = record(
      name, {&t},
      [](const FormulaNode&, const Grads& g, const std::vector<Tensor>&) { return Grads{g[0]}; });
  if (r) set_history(r, {&out});
  return out;
}

Tensor to(const Tensor& t, ScalarType dtype, Device device, bool copy, bool non_blocking) {
  if (!autograd::any_requires_grad({&t})) return ops::to(t, dtype, device, copy, non_blocking);
  return pass_through("ToCopyBackward0", t, ops::to(t, dtype, device, copy, non_blocking));
}
Tensor copy_to(const Tensor& t, ScalarType dtype, Device device, bool non_blocking) {
  if (!autograd::any_requires_grad({&t})) return ops::copy_to(t, dtype, device, non_blocking);
  return pass_through("ToCopyBackward0", t, ops::copy_to(t, dtype, device, non_blocking));
}
Tensor clone(const Tensor& t) {
  if (!autograd::any_requires_grad({&t})) return ops::clone(t);
  return pass_through("CloneBackward0", t, ops::clone(t));
}
Tensor contiguous(const Tensor& t) {
  if (!autograd::any_requires_grad({&t})) return ops::contiguous(t);
  return pass_through("CloneBackward0", t, ops::contiguous(t));
}

}  // namespace genesis::ag

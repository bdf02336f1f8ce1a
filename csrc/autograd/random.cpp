// Backward formulas of the random draws whose parameters are tensors (normal, bernoulli,
// poisson): Note [Gradients of random draws].
#include "autograd/formula_helpers.h"

namespace genesis::ag {

// Note [Gradients of random draws]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// PyTorch 2.13 records normal(mean, std), bernoulli(p) and poisson(rates) with a node whose
// gradient is zero for every parameter: it does not reparameterize normal (mean + std * eps
// would be differentiable; write it so to get that gradient), and bernoulli's and poisson's
// draws are steps of their parameters. genesis records the same zeros, so a graph through a
// draw runs backward instead of raising, and the parameters' gradients match PyTorch's.
Tensor random_draw(const char* name, std::initializer_list<const Tensor*> params, Tensor out) {
  if (!autograd::any_requires_grad(params) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  Recorder r =
      record(name, params, [](const FormulaNode& n, const Grads&, const std::vector<Tensor>&) {
        Grads zeros(n.next_edges.size());
        for (size_t i = 0; i < zeros.size(); ++i)
          if (n.needs_grad(i)) zeros[i] = zeros_like_info(n.input_info[i]);
        return zeros;
      });
  set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag

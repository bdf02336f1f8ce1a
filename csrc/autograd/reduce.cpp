// Backward formulas of the reductions: the gradient broadcast back over the reduced dims.
#include "ops/reduce.h"
#include "autograd/formula_helpers.h"
#include "core/errors.h"
#include "ops/views.h"

namespace genesis::ag {

namespace {

// Whether a reduction is over every dim (PyTorch names those nodes ...Backward0).
bool all_dims(const Dims& dims) { return !dims || dims->empty(); }

}  // namespace

Tensor sum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor out = ops::sum(t, dims, keepdim, dtype);
  if (!autograd::any_requires_grad({&t}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  Shape in_sizes = t.sizes();
  Recorder r = record(
      all_dims(dims) ? "SumBackward0" : "SumBackward1", {&t},
      [in_sizes, dims, keepdim](const FormulaNode&, const Grads& g, const std::vector<Tensor>&) {
        return Grads{expand(keep_reduced_dims(g[0], in_sizes, dims, keepdim), in_sizes)};
      });
  set_history(r, {&out});
  return out;
}

Tensor mean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor out = ops::mean(t, dims, keepdim, dtype);
  if (!autograd::any_requires_grad({&t}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  Shape in_sizes = t.sizes();
  double count = static_cast<double>(reduced_count(in_sizes, dims));
  Recorder r =
      record(all_dims(dims) ? "MeanBackward0" : "MeanBackward1", {&t},
             [in_sizes, dims, keepdim, count](const FormulaNode&, const Grads& g,
                                              const std::vector<Tensor>&) {
               Tensor scaled = div(g[0], num(count));
               return Grads{expand(keep_reduced_dims(scaled, in_sizes, dims, keepdim), in_sizes)};
             });
  set_history(r, {&out});
  return out;
}

std::vector<bool> reduced_dims(const Dims& dims, int64_t ndim) {
  std::vector<bool> flags(static_cast<size_t>(ndim), all_dims(dims));
  // A 0-d tensor reduced over dim 0 or -1 (PyTorch allows both) has no dim to flag.
  if (dims && ndim > 0)
    for (int64_t d : *dims) flags[static_cast<size_t>(d < 0 ? d + ndim : d)] = true;
  return flags;
}

int64_t reduced_count(const Shape& in_sizes, const Dims& dims) {
  std::vector<bool> reduced = reduced_dims(dims, static_cast<int64_t>(in_sizes.size()));
  int64_t count = 1;
  for (size_t d = 0; d < in_sizes.size(); ++d)
    if (reduced[d]) count *= in_sizes[d];
  return count;
}

Tensor keep_reduced_dims(const Tensor& g, const Shape& in_sizes, const Dims& dims, bool keepdim) {
  if (keepdim || in_sizes.empty()) return g;
  std::vector<bool> reduced = reduced_dims(dims, static_cast<int64_t>(in_sizes.size()));
  Shape kept;
  for (size_t d = 0; d < in_sizes.size(); ++d) kept.push_back(reduced[d] ? 1 : in_sizes[d]);
  return reshape(g, kept);
}

Tensor sum_to(const Tensor& g, const Shape& shape) {
  int64_t lead = g.ndim() - static_cast<int64_t>(shape.size());
  Shape dims;
  for (int64_t d = 0; d < g.ndim(); ++d) {
    if (d < lead) {
      dims.push_back(d);
    } else if (shape[d - lead] == 1 && g.sizes()[d] != 1) {
      dims.push_back(d);
    }
  }
  if (dims.empty()) return g;
  Tensor s = sum(g, dims, /*keepdim=*/true, std::nullopt);
  if (lead > 0) s = reshape(s, shape);
  return s;
}

}  // namespace genesis::ag

// Backward formulas of PyTorch's index family: index_select, take_along_dim, take,
// masked_select, and the out-of-place writers masked_fill, index_fill, index_copy, index_add,
// scatter, scatter_add (whose in-place forms go through apply_inplace). A read's gradient is
// added back into zeros at the places read; a write's gradient to self is g with the written
// places zeroed, and to the source, g read at those places.
#include "autograd/formula_helpers.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/index_ops.h"
#include "ops/index_reduce.h"
#include "ops/views.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

int64_t wrap(int64_t dim, int64_t ndim) { return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim; }

Tensor zeros(const Shape& sizes, const Tensor& like) {
  return ops::full(sizes, Scalar(0.0), like.dtype(), like.device());
}

// zeros of in_sizes with g added along dim at index (index_select's gradient; recorded).
Tensor index_add_into_zeros(const Tensor& g, int64_t dim, const Tensor& index,
                            const Shape& in_sizes) {
  if (in_sizes.empty()) return reshape(g, in_sizes);
  Tensor z = zeros(in_sizes, g);
  ops::index_add_(z, dim, index, g, Scalar(1.0));
  Recorder r = record("IndexAddBackward0", {&g}, [dim](const FormulaNode&, const Grads& gg, S s) {
    return Grads{index_select(gg[0], dim, s[0])};
  });
  if (!r) return z;
  r.save(index);
  set_history(r, {&z});
  return z;
}

// zeros of in_sizes with g added at the flat positions of index (take's gradient; recorded).
Tensor put_into_zeros(const Tensor& g, const Tensor& index, const Shape& in_sizes) {
  Tensor z = zeros(in_sizes, g);
  ops::put_(z, index, g, /*accumulate=*/true);
  Recorder r = record("PutBackward0", {&g}, [](const FormulaNode&, const Grads& gg, S s) {
    return Grads{take(gg[0], s[0])};
  });
  if (!r) return z;
  r.save(index);
  set_history(r, {&z});
  return z;
}

// zeros shaped like mask with g placed where mask is set, in order (masked_select's gradient).
Tensor masked_scatter_into_zeros(const Tensor& g, const Tensor& mask) {
  Tensor z = zeros(mask.sizes(), g);
  ops::masked_scatter_(z, mask, g);
  Recorder r = record("MaskedScatterBackward0", {&g}, [](const FormulaNode&, const Grads& gg, S s) {
    return Grads{masked_select(gg[0], s[0])};
  });
  if (!r) return z;
  r.save(mask);
  set_history(r, {&z});
  return z;
}

// The tensor of a value operand that takes part in autograd, or null.
const Tensor* tracked(const Operand& v) { return v.is_scalar() ? nullptr : &v.tensor(); }

}  // namespace

Tensor index_select(const Tensor& input, int64_t dim, const Tensor& index) {
  Tensor out = ops::index_select(input, dim, index);
  if (!autograd::any_requires_grad({&input})) return out;
  Shape in_sizes = input.sizes();
  int64_t d = wrap(dim, input.ndim());
  Recorder r = record("IndexSelectBackward0", {&input},
                      [in_sizes, d](const FormulaNode&, const Grads& g, S s) {
                        return Grads{index_add_into_zeros(g[0], d, s[0], in_sizes)};
                      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor take_along_dim(const Tensor& input, const Tensor& indices, std::optional<int64_t> dim) {
  Tensor out = ops::take_along_dim(input, indices, dim);
  if (!autograd::any_requires_grad({&input})) return out;
  Shape in_sizes = input.sizes();
  if (!dim) {
    Recorder r = record("TakeAlongDimBackward0", {&input},
                        [in_sizes](const FormulaNode&, const Grads& g, S s) {
                          return Grads{put_into_zeros(g[0], s[0], in_sizes)};
                        });
    if (!r) return out;
    r.save(ops::reshape(indices, {-1}));
    set_history(r, {&out});
    return out;
  }
  // The input broadcast against the indices (all but dim), then gathered; the engine sums the
  // broadcast dims of the gradient away.
  int64_t d = wrap(*dim, input.ndim());
  Shape gathered_from = out.sizes();
  if (!gathered_from.empty()) gathered_from[d] = in_sizes.empty() ? 1 : in_sizes[d];
  Recorder r = record("TakeAlongDimBackward0", {&input},
                      [gathered_from, d](const FormulaNode&, const Grads& g, S s) {
                        return Grads{scatter_add_into_zeros(g[0], d, s[0], gathered_from)};
                      });
  if (!r) return out;
  r.save(out.sizes().empty() ? indices : ops::expand(indices, out.sizes()));
  set_history(r, {&out});
  return out;
}

Tensor take(const Tensor& input, const Tensor& index) {
  Tensor out = ops::take(input, index);
  if (!autograd::any_requires_grad({&input})) return out;
  Shape in_sizes = input.sizes();
  Recorder r =
      record("TakeBackward0", {&input}, [in_sizes](const FormulaNode&, const Grads& g, S s) {
        return Grads{put_into_zeros(g[0], s[0], in_sizes)};
      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor masked_select(const Tensor& input, const Tensor& mask) {
  Tensor out = ops::masked_select(input, mask);
  if (!autograd::any_requires_grad({&input})) return out;
  // Against the mask broadcast with the input; the engine sums broadcast dims away.
  Shape shape = broadcast_shapes(input.sizes(), mask.sizes(), "masked_select");
  Recorder r =
      record("MaskedSelectBackward0", {&input}, [](const FormulaNode&, const Grads& g, S s) {
        return Grads{masked_scatter_into_zeros(g[0], s[0])};
      });
  if (!r) return out;
  r.save(ops::expand(mask, shape));
  set_history(r, {&out});
  return out;
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Operand& value) {
  Tensor out = value.is_scalar() ? ops::masked_fill(self, mask, value.scalar)
                                 : ops::masked_fill(self, mask, value.tensor());
  Recorder r = record("MaskedFillBackward0", {&self, tracked(value)},
                      [](const FormulaNode& n, const Grads& g, S s) {
                        Grads r(2);
                        if (n.needs_grad(0)) r[0] = ag::where(s[0], num(0.0), g[0]);
                        if (n.needs_grad(1))
                          r[1] = sum(ag::where(s[0], g[0], num(0.0)), {}, false, {});
                        return r;
                      });
  if (!r) return out;
  r.save(mask);
  set_history(r, {&out});
  return out;
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Operand& value) {
  Tensor out = ops::clone(self);
  ops::index_fill_(out, dim, index,
                   value.is_scalar() ? value.scalar : ops::scalar_of(value.tensor(), "index_fill"));
  Recorder r = record("IndexFillBackward0", {&self, tracked(value)},
                      [dim](const FormulaNode& n, const Grads& g, S s) {
                        Grads r(2);
                        Tensor kept = index_fill(g[0], dim, s[0], Scalar(0.0));
                        if (n.needs_grad(0)) r[0] = kept;
                        if (n.needs_grad(1)) r[1] = sum(sub(g[0], kept), {}, false, {});
                        return r;
                      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor out = ops::clone(self);
  ops::index_copy_(out, dim, index, source);
  Recorder r = record("IndexCopyBackward0", {&self, &source},
                      [dim](const FormulaNode& n, const Grads& g, S s) {
                        Grads r(2);
                        if (n.needs_grad(0)) r[0] = index_fill(g[0], dim, s[0], Scalar(0.0));
                        if (n.needs_grad(1)) r[1] = index_select(g[0], dim, s[0]);
                        return r;
                      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha, const char* op) {
  Tensor out = ops::clone(self);
  ops::index_add_(out, dim, index, source, alpha, op);
  double a = alpha.to_double();
  Recorder r = record("IndexAddBackward0", {&self, &source},
                      [dim, a](const FormulaNode& n, const Grads& g, S s) {
                        Grads r(2);
                        if (n.needs_grad(0)) r[0] = g[0];
                        if (n.needs_grad(1)) {
                          Tensor picked = index_select(g[0], dim, s[0]);
                          r[1] = a == 1.0 ? picked : mul(picked, num(a));
                        }
                        return r;
                      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Operand& src) {
  Tensor out = ops::clone(self);
  if (src.is_scalar())
    ops::scatter_value_(out, dim, index, src.scalar);
  else
    ops::scatter_(out, dim, index, src.tensor());
  bool src_is_value = src.is_scalar() || src.tensor().ndim() == 0;
  Recorder r = record("ScatterBackward0", {&self, src.is_scalar() ? nullptr : &src.tensor()},
                      [dim, src_is_value](const FormulaNode& n, const Grads& g, S s) {
                        Grads r(2);
                        if (n.needs_grad(0)) r[0] = scatter(g[0], dim, s[0], Scalar(0.0));
                        if (n.needs_grad(1)) {
                          Tensor picked = gather(g[0], dim, s[0]);
                          r[1] = src_is_value ? sum(picked, {}, false, {}) : picked;
                        }
                        return r;
                      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                   const char* op) {
  Tensor out = ops::clone(self);
  ops::scatter_add_(out, dim, index, src, op);
  Recorder r = record("ScatterAddBackward0", {&self, &src},
                      [dim](const FormulaNode& n, const Grads& g, S s) {
                        Grads r(2);
                        if (n.needs_grad(0)) r[0] = g[0];
                        if (n.needs_grad(1)) r[1] = gather(g[0], dim, s[0]);
                        return r;
                      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

}  // namespace genesis::ag

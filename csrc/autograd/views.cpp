// Backward formulas of the view ops (Note [Views and autograd]).
#include <functional>

#include "autograd/formula_helpers.h"
#include "autograd/grad_mode.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/views.h"

namespace genesis::ag {

// Note [Views and autograd]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A view op's gradient is a view op too: reshapes reshape it back, permutations permute it
// back, expand sums it (the engine's reduction to the input's shape). The views that pick a
// part (narrow, select, slice, diagonal, x[key]) put the gradient into zeros of the input's
// shape at the same place, found by applying the same op to the zeros, so one formula serves
// them all; that scatter is itself a recorded op whose gradient is the view again, so double
// backward works. A recorded view remembers the tensor its chain of views started from
// (AutogradMeta::view_base, the root, as PyTorch's ._base) and how to make it again from there
// with recorded ops (view_fn: each view op's `again` composed along the chain). That is what an
// in-place op on the view needs to rebase the root's history (Note [In-place ops and
// autograd]), and what gradient_edge uses to give a view whose root was written since its
// grad_fn was set (through another view, or the root itself) a grad_fn of the root's new
// history, as PyTorch regenerates a view's grad_fn.

namespace {

using ViewFn = std::function<Tensor(const Tensor&)>;

// `again` is the view op itself with recorded ops (applied to t it gives out): what the view's
// record keeps to make it again from its base (mark_view).
template <typename Forward, typename Backward>
Tensor view_op(const Tensor& t, const char* name, const Forward& forward, Backward backward,
               ViewFn again) {
  if (!autograd::any_requires_grad({&t})) {
    Tensor out = forward();
    note_view_without_grad(out, t);
    return out;
  }
  Tensor out = forward();
  Recorder r = record(name, {&t},
                      [backward](const FormulaNode&, const Grads& g, const std::vector<Tensor>&) {
                        return Grads{backward(g[0])};
                      });
  set_history(r, {&out});
  mark_view(out, t, std::move(again));
  return out;
}

// zeros of `in_sizes` with g written where `view_of` looks (a recorded op: its gradient is
// view_of again).
Tensor view_scatter(const Tensor& g, const Shape& in_sizes,
                    const std::function<Tensor(const Tensor&)>& view_of) {
  Tensor z = ops::full(in_sizes, Scalar(0.0), g.dtype(), g.device());
  {
    autograd::GradModeGuard off(false);
    ops::copy_(view_of(z), g);
  }
  Recorder r = record("ViewScatterBackward0", {&g},
                      [view_of](const FormulaNode&, const Grads& gg, const std::vector<Tensor>&) {
                        return Grads{view_of(gg[0])};
                      });
  if (r) set_history(r, {&z});
  return z;
}

template <typename Forward>
Tensor part_view(const Tensor& t, const char* name, const Forward& forward, ViewFn again) {
  Shape in_sizes = t.sizes();
  return view_op(
      t, name, forward,
      [in_sizes, again](const Tensor& g) { return view_scatter(g, in_sizes, again); }, again);
}

Shape inverse_permutation(const Shape& dims, int64_t ndim) {
  Shape inv(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = dims[i] < 0 ? dims[i] + ndim : dims[i];
    inv[static_cast<size_t>(d)] = static_cast<int64_t>(i);
  }
  return inv;
}

}  // namespace

void mark_view(const Tensor& out, const Tensor& base, ViewFn again) {
  if (!out.storage().is_same(base.storage())) return;
  AutogradMeta& m = autograd::meta_of(out);
  const auto& bm = base.autograd_meta();
  if (bm != nullptr && bm->view_fn) {
    m.view_base = bm->view_base;
    m.view_fn = std::make_shared<const ViewSteps>(std::move(again), bm->view_fn);
  } else {
    m.view_base = base;  // shares base's meta: its history is what an in-place op rebases
    m.view_fn = std::make_shared<const ViewSteps>(std::move(again), nullptr);
  }
  m.view_version = out.storage().write_version();
  if (bm != nullptr && bm->multi_output_node != nullptr) {  // a view of a split's piece
    m.multi_output_node = bm->multi_output_node;
    m.multi_output_index = bm->multi_output_index;
  }
}

// Note [Views made under no_grad]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A view made under no_grad of a tensor in a graph is not recorded: it has no view_fn, so an
// in-place op on it could not rebase its base's history, and the base would keep a history
// that no longer describes its values (a silently wrong gradient). As PyTorch does, such a
// view (and any view of it) is flagged, and an in-place op on it with grad mode on raises
// (check_inplace, through the write guard); under no_grad it writes as usual.
void note_view_without_grad(const Tensor& out, const Tensor& base) {
  const auto& bm = base.autograd_meta();
  if (bm == nullptr || out.autograd_meta() != nullptr) return;
  bool flag = bm->view_made_without_grad ||
              (!autograd::GradMode::is_enabled() && (bm->requires_grad || bm->grad_fn != nullptr));
  if (flag && out.storage().is_same(base.storage()))
    autograd::meta_of(out).view_made_without_grad = true;
}

void refresh_view(const Tensor& view) {
  AutogradMeta& m = autograd::meta_of(view);
  Tensor fresh;
  {
    autograd::GradModeGuard on(true);
    fresh = (*m.view_fn)(m.view_base);
  }
  const auto& fm = fresh.autograd_meta();
  m.grad_fn = fm != nullptr ? fm->grad_fn : nullptr;
  m.output_nr = fm != nullptr ? fm->output_nr : 0;
  m.view_version = view.storage().write_version();
}

#define GENESIS_RESHAPE_BACK [in_sizes](const Tensor& g) { return reshape(g, in_sizes); }

Tensor view(const Tensor& t, const Shape& shape) {
  Shape in_sizes = t.sizes();
  return view_op(
      t, "ViewBackward0", [&] { return ops::view(t, shape); }, GENESIS_RESHAPE_BACK,
      [shape](const Tensor& x) { return view(x, shape); });
}
Tensor reshape(const Tensor& t, const Shape& shape) {
  Shape in_sizes = t.sizes();
  return view_op(
      t, "ReshapeAliasBackward0", [&] { return ops::reshape(t, shape); }, GENESIS_RESHAPE_BACK,
      [shape](const Tensor& x) { return reshape(x, shape); });
}
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  Shape in_sizes = t.sizes();
  return view_op(
      t, "ViewBackward0", [&] { return ops::flatten(t, start_dim, end_dim); }, GENESIS_RESHAPE_BACK,
      [start_dim, end_dim](const Tensor& x) { return flatten(x, start_dim, end_dim); });
}
Tensor unflatten(const Tensor& t, int64_t dim, const Shape& sizes) {
  Shape in_sizes = t.sizes();
  return view_op(
      t, "ViewBackward0", [&] { return ops::unflatten(t, dim, sizes); }, GENESIS_RESHAPE_BACK,
      [dim, sizes](const Tensor& x) { return unflatten(x, dim, sizes); });
}
Tensor squeeze(const Tensor& t) {
  Shape in_sizes = t.sizes();
  return view_op(
      t, "SqueezeBackward0", [&] { return ops::squeeze(t); }, GENESIS_RESHAPE_BACK,
      [](const Tensor& x) { return squeeze(x); });
}
Tensor squeeze(const Tensor& t, const Shape& dims) {
  Shape in_sizes = t.sizes();
  return view_op(
      t, "SqueezeBackward1", [&] { return ops::squeeze(t, dims); }, GENESIS_RESHAPE_BACK,
      [dims](const Tensor& x) { return squeeze(x, dims); });
}
Tensor unsqueeze(const Tensor& t, int64_t dim) {
  Shape in_sizes = t.sizes();
  return view_op(
      t, "UnsqueezeBackward0", [&] { return ops::unsqueeze(t, dim); }, GENESIS_RESHAPE_BACK,
      [dim](const Tensor& x) { return unsqueeze(x, dim); });
}
#undef GENESIS_RESHAPE_BACK

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  return view_op(
      t, "TransposeBackward0", [&] { return ops::transpose(t, dim0, dim1); },
      [dim0, dim1](const Tensor& g) { return transpose(g, dim0, dim1); },
      [dim0, dim1](const Tensor& x) { return transpose(x, dim0, dim1); });
}
Tensor permute(const Tensor& t, const Shape& dims) {
  // The inverse is taken in the backward, after ops::permute has checked the dims.
  int64_t ndim = t.ndim();
  return view_op(
      t, "PermuteBackward0", [&] { return ops::permute(t, dims); },
      [dims, ndim](const Tensor& g) { return permute(g, inverse_permutation(dims, ndim)); },
      [dims](const Tensor& x) { return permute(x, dims); });
}
Tensor t(const Tensor& x) {
  return view_op(
      x, "TBackward0", [&] { return ops::t(x); }, [](const Tensor& g) { return t(g); },
      [](const Tensor& v) { return t(v); });
}
Tensor reverse_dims(const Tensor& x) {
  return view_op(
      x, "PermuteBackward0", [&] { return ops::reverse_dims(x); },
      [](const Tensor& g) { return reverse_dims(g); },
      [](const Tensor& v) { return reverse_dims(v); });
}
Tensor movedim(const Tensor& x, const Shape& source, const Shape& destination) {
  return view_op(
      x, "MovedimBackward0", [&] { return ops::movedim(x, source, destination); },
      [source, destination](const Tensor& g) { return movedim(g, destination, source); },
      [source, destination](const Tensor& v) { return movedim(v, source, destination); });
}
Tensor expand(const Tensor& x, const Shape& sizes) {
  // The engine sums the gradient down to the input's shape.
  return view_op(
      x, "ExpandBackward0", [&] { return ops::expand(x, sizes); },
      [](const Tensor& g) { return g; }, [sizes](const Tensor& v) { return expand(v, sizes); });
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  return part_view(
      x, "NarrowBackward0", [&] { return ops::narrow(x, dim, start, length); },
      [dim, start, length](const Tensor& z) { return narrow(z, dim, start, length); });
}
Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  return part_view(
      x, "SelectBackward0", [&] { return ops::select(x, dim, index); },
      [dim, index](const Tensor& z) { return select(z, dim, index); });
}
Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  return part_view(
      x, "DiagonalBackward0", [&] { return ops::diagonal(x, offset, dim1, dim2); },
      [offset, dim1, dim2](const Tensor& z) { return diagonal(z, offset, dim1, dim2); });
}
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step) {
  return part_view(
      x, "SliceBackward0", [&] { return ops::slice(x, dim, start, stop, step); },
      [dim, start, stop, step](const Tensor& z) { return slice(z, dim, start, stop, step); });
}

// As PyTorch composes them: the input itself, or reshape (0-d) and unsqueeze views.
Tensor atleast_1d(const Tensor& x) { return x.ndim() >= 1 ? x : reshape(x, {1}); }
Tensor atleast_2d(const Tensor& x) {
  if (x.ndim() >= 2) return x;
  return x.ndim() == 0 ? reshape(x, {1, 1}) : unsqueeze(x, 0);
}
Tensor atleast_3d(const Tensor& x) {
  switch (x.ndim()) {
    case 0:
      return reshape(x, {1, 1, 1});
    case 1:
      return unsqueeze(unsqueeze(x, 0), 2);
    case 2:
      return unsqueeze(x, 2);
    default:
      return x;
  }
}

}  // namespace genesis::ag

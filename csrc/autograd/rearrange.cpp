// Backward formulas of the copies that rearrange or repeat elements: flip, roll, rot90,
// repeat/tile, repeat_interleave, tril/triu, diag, diag_embed. Each gradient is the inverse
// rearrangement of g, with repeated places summed.
#include "ops/rearrange.h"
#include "autograd/formula_helpers.h"
#include "core/errors.h"
#include "ops/composed.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/reduce_composite.h"
#include "ops/triangular.h"
#include "ops/views.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;

// A copy-op's result recorded with `formula` over g alone.
template <typename F>
Tensor recorded(const char* name, const Tensor& t, Tensor out, F formula) {
  if (!autograd::any_requires_grad({&t}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  Recorder r = record(name, {&t}, [formula](const FormulaNode&, const Grads& g, S) {
    return Grads{formula(g[0])};
  });
  if (r) set_history(r, {&out});
  return out;
}

Shape with_size(Shape s, int64_t d, int64_t size) {
  s[static_cast<size_t>(d)] = size;
  return s;
}

Shape negated(const Shape& s) {
  Shape n;
  for (int64_t v : s) n.push_back(-v);
  return n;
}

// zeros of `sizes` with g on the diagonal (offset, dim1, dim2): diagonal()'s gradient.
Tensor diagonal_into_zeros(const Tensor& g, const Shape& sizes, int64_t offset, int64_t dim1,
                           int64_t dim2) {
  Tensor z = ops::full(sizes, Scalar(0.0), g.dtype(), g.device());
  ops::copy_(ops::diagonal(z, offset, dim1, dim2), g);
  return recorded("DiagonalBackwardBackward0", g, z, [offset, dim1, dim2](const Tensor& gg) {
    return diagonal(gg, offset, dim1, dim2);
  });
}

}  // namespace

Tensor flip(const Tensor& t, const Shape& dims) {
  return recorded("FlipBackward0", t, ops::flip(t, dims),
                  [dims](const Tensor& g) { return flip(g, dims); });
}

Tensor roll(const Tensor& t, const Shape& shifts, const Shape& dims) {
  Shape back = negated(shifts);
  return recorded("RollBackward0", t, ops::roll(t, shifts, dims),
                  [back, dims](const Tensor& g) { return roll(g, back, dims); });
}

Tensor rot90(const Tensor& t, int64_t k, const Shape& dims) {
  return recorded("Rot90Backward0", t, ops::rot90(t, k, dims),
                  [k, dims](const Tensor& g) { return rot90(g, -k, dims); });
}

Tensor repeat(const Tensor& t, const Shape& repeats) {
  Tensor out = ops::repeat(t, repeats);
  // The input, padded to len(repeats) dims, is repeated r times along each: g seen as
  // (r0, s0, r1, s1, ...) summed over the r's.
  Shape sizes = t.sizes(), split, summed;
  size_t lead = repeats.size() - sizes.size();
  for (size_t d = 0; d < repeats.size(); ++d) {
    split.push_back(repeats[d]);
    split.push_back(d < lead ? 1 : sizes[d - lead]);
    summed.push_back(static_cast<int64_t>(2 * d));
  }
  return recorded("RepeatBackward0", t, out, [split, summed, sizes](const Tensor& g) {
    return reshape(sum(reshape(g, split), summed, false, {}), sizes);
  });
}

Tensor tile(const Tensor& t, const Shape& reps) {
  if (!autograd::any_requires_grad({&t})) return ops::tile(t, reps);
  Shape padded = reps;
  while (padded.size() < t.sizes().size()) padded.insert(padded.begin(), 1);
  return repeat(t, padded);
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim) {
  Tensor out = ops::repeat_interleave(t, repeats, dim);
  // Along d, each element is repeated `repeats` times in a row: g seen as (..., n, r, ...)
  // summed over r (over the flattened input when dim is None).
  Shape in_sizes = t.sizes();
  Shape base = dim ? in_sizes : Shape{t.numel()};
  int64_t d = dim ? (*dim < 0 ? *dim + t.ndim() : *dim) : 0;
  if (base.empty()) base = Shape{1}, d = 0;
  Shape split = base;
  split.insert(split.begin() + d + 1, repeats);
  return recorded("RepeatInterleaveBackward0", t, out, [split, d, in_sizes](const Tensor& g) {
    return reshape(sum(reshape(g, split), Shape{d + 1}, false, {}), in_sizes);
  });
}

Tensor tril(const Tensor& t, int64_t k, bool upper) {
  Tensor out = upper ? ops::triu(t, k) : ops::tril(t, k);
  return recorded(upper ? "TriuBackward0" : "TrilBackward0", t, out,
                  [k, upper](const Tensor& g) { return tril(g, k, upper); });
}

Tensor diag(const Tensor& t, int64_t k) {
  Tensor out = ops::diag(t, k);
  Shape in_sizes = t.sizes();
  return recorded("DiagBackward0", t, out, [k, in_sizes](const Tensor& g) {
    if (in_sizes.size() == 1) return diagonal(g, k, 0, 1);
    return diagonal_into_zeros(g, in_sizes, k, 0, 1);
  });
}

Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  return recorded(
      "DiagEmbedBackward0", t, ops::diag_embed(t, offset, dim1, dim2),
      [offset, dim1, dim2](const Tensor& g) { return diagonal(g, offset, dim1, dim2); });
}

Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim) {
  Tensor out = ops::repeat_interleave(t, repeats, dim);
  if (!autograd::any_requires_grad({&t}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  // out is index_select(t, d, i) with i = [0, 0, 1, 2, 2, ...] (each index repeated): its
  // gradient adds g back at those indices.
  Shape in_sizes = t.sizes();
  Shape base = dim ? in_sizes : Shape{t.numel()};
  int64_t d = dim ? (*dim < 0 ? *dim + t.ndim() : *dim) : 0;
  int64_t n = base.empty() ? 1 : base[d];
  Tensor positions =
      ops::arange(Scalar(int64_t{0}), Scalar(n), Scalar(int64_t{1}), ScalarType::Int64, t.device());
  Tensor index = ops::repeat_interleave(positions, repeats, 0);
  if (base.empty()) base = Shape{1};
  Recorder r =
      record("RepeatInterleaveBackward0", {&t},
             [base, d, in_sizes](const FormulaNode&, const Grads& g, S s) {
               Tensor z = ops::full(base, Scalar(0.0), g[0].dtype(), g[0].device());
               Tensor gb = reshape(g[0], with_size(base, d, s[0].numel()));
               return Grads{reshape(index_add(z, d, s[0], gb, Scalar(1.0), "backward"), in_sizes)};
             });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  Tensor out = ops::unfold(t, dim, size, step);
  if (!autograd::any_requires_grad({&t}) || !autograd::is_differentiable_dtype(out.dtype()))
    return out;
  // Window w, place k of out reads t at w * step + k along d: the gradient adds g, its window
  // dims made one, back at those positions.
  Shape in_sizes = t.sizes();
  int64_t d = t.ndim() == 0 ? 0 : (dim < 0 ? dim + t.ndim() : dim);
  int64_t windows = t.ndim() == 0 ? 1 : out.sizes()[d];
  auto range = [&](int64_t n, int64_t by) {
    return ops::arange(Scalar(int64_t{0}), Scalar(n * by), Scalar(by), ScalarType::Int64,
                       t.device());
  };
  Tensor index = ops::reshape(ops::binary(BinaryOp::Add, ops::unsqueeze(range(windows, step), 1),
                                          ops::unsqueeze(range(size, 1), 0), "unfold"),
                              {-1});
  Recorder r =
      record("UnfoldBackward0", {&t}, [in_sizes, d](const FormulaNode&, const Grads& g, S s) {
        if (in_sizes.empty()) return Grads{reshape(g[0], in_sizes)};
        Tensor gw = movedim(g[0], Shape{-1}, Shape{d + 1});
        Tensor flat = reshape(gw, with_size(in_sizes, d, s[0].numel()));
        Tensor z = ops::full(in_sizes, Scalar(0.0), g[0].dtype(), g[0].device());
        return Grads{index_add(z, d, s[0], flat, Scalar(1.0), "backward")};
      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  mark_view(out, t,
            [dim, size, step](const Tensor& base) { return unfold(base, dim, size, step); });
  return out;
}

namespace {
// The recorded ops diff is composed of (ops/composed.h): its gradient comes with them.
struct DifferentiableDiffOps {
  static Tensor cat(const std::vector<Tensor>& parts, int64_t dim) { return ag::cat(parts, dim); }
  static Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
    return ag::narrow(t, dim, start, length);
  }
  static Tensor subtract(const Tensor& later, const Tensor& earlier) { return sub(later, earlier); }
};
}  // namespace

Tensor diff(const Tensor& t, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  bool tracked = autograd::any_requires_grad({&t}) ||
                 (prepend && autograd::any_requires_grad({&*prepend})) ||
                 (append && autograd::any_requires_grad({&*append}));
  if (!tracked) return ops::diff(t, n, dim, prepend, append);
  return ops::compose_diff<DifferentiableDiffOps>(t, n, dim, prepend, append);
}

}  // namespace genesis::ag

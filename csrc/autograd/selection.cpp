// Backward formulas of the ops that pick elements of their input: max/min and their kin, sort,
// topk, kthvalue, median, mode, cummax/cummin, gather. The gradient goes back to the places
// picked: through the indices the op returns, or, where it returns none (max(), amax, median()),
// shared evenly by the elements equal to the result, as PyTorch does.
#include "autograd/formula_helpers.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/elementwise_composed.h"
#include "ops/index_ops.h"
#include "ops/index_reduce.h"
#include "ops/reduce.h"
#include "ops/reduce_composite.h"
#include "ops/scan.h"
#include "ops/sort.h"
#include "ops/views.h"

namespace genesis::ag {

namespace {

using S = const std::vector<Tensor>&;
using Pair = std::pair<Tensor, Tensor>;

int64_t wrap(int64_t dim, int64_t ndim) { return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim; }

// g shared evenly by the elements of x equal to their reduction's result y. With nan_matches
// (max(), min() and median() over everything, as PyTorch's evenly_distribute_backward), a NaN
// result is shared by the NaNs of x; amax/amin compare with == only, as PyTorch's.
Tensor evenly(const Tensor& g, const Tensor& x, const Tensor& y, const Dims& dims, bool keepdim,
              bool nan_matches = false) {
  Shape in_sizes = x.sizes();
  Tensor target = keep_reduced_dims(y, in_sizes, dims, keepdim);
  Tensor hit = equal(x, target);
  if (nan_matches && is_floating_point(x.dtype())) {
    Tensor both_nan =
        ops::binary(ops::BinaryOp::LogicalAnd, ops::isnan(x), ops::isnan(target), "evenly");
    hit = ops::binary(ops::BinaryOp::LogicalOr, hit, both_nan, "evenly");
  }
  Tensor picked = ops::to(hit, x.dtype(), x.device(), false);
  Tensor count = ops::sum(picked, dims, true, std::nullopt);
  return mul(keep_reduced_dims(g, in_sizes, dims, keepdim), div(picked, count));
}

// A reduction whose gradient is shared evenly (max(), amax, median()).
Tensor evenly_recorded(const char* name, const Tensor& t, Tensor out, const Dims& dims,
                       bool keepdim, bool nan_matches = false) {
  if (!autograd::is_differentiable_dtype(out.dtype())) return out;
  Recorder r =
      record(name, {&t}, [dims, keepdim, nan_matches](const FormulaNode&, const Grads& g, S s) {
        return Grads{evenly(g[0], s[0], s[1], dims, keepdim, nan_matches)};
      });
  if (!r) return out;
  r.save(t);
  r.save_output(out);
  set_history(r, {&out});
  return out;
}

// (values, indices) along dim: the values' gradient goes to the indices. `reduced`: the op
// took dim away unless keepdim (max(dim), kthvalue, ...); otherwise values have its size.
Pair picked_along(const char* name, const Tensor& t, Pair result, int64_t dim, bool reduced) {
  if (!autograd::is_differentiable_dtype(result.first.dtype())) return result;
  Shape in_sizes = t.sizes();
  int64_t d = wrap(dim, t.ndim());
  Recorder r = record(name, {&t}, [in_sizes, d, reduced](const FormulaNode&, const Grads& g, S s) {
    Tensor gv = g[0], idx = s[0];
    if (reduced && !in_sizes.empty()) gv = unsqueeze(gv, d), idx = ops::unsqueeze(idx, d);
    return Grads{scatter_add_into_zeros(gv, d, idx, in_sizes)};
  });
  if (!r) return result;
  r.save(result.second);
  set_history(r, {&result.first});
  return result;
}

}  // namespace

Tensor scatter_add_into_zeros(const Tensor& g, int64_t dim, const Tensor& index,
                              const Shape& in_sizes) {
  if (in_sizes.empty()) return reshape(g, in_sizes);
  Tensor z = ops::full(in_sizes, Scalar(0.0), g.dtype(), g.device());
  ops::scatter_add_(z, dim, index, g);
  Recorder r = record("ScatterAddBackward0", {&g}, [dim](const FormulaNode&, const Grads& gg, S s) {
    return Grads{gather(gg[0], dim, s[0])};
  });
  if (!r) return z;
  r.save(index);
  set_history(r, {&z});
  return z;
}

Tensor gather(const Tensor& input, int64_t dim, const Tensor& index) {
  Tensor out = ops::gather(input, dim, index);
  if (!autograd::any_requires_grad({&input})) return out;
  Shape in_sizes = input.sizes();
  int64_t d = wrap(dim, input.ndim());
  Recorder r =
      record("GatherBackward0", {&input}, [in_sizes, d](const FormulaNode&, const Grads& g, S s) {
        return Grads{scatter_add_into_zeros(g[0], d, s[0], in_sizes)};
      });
  if (!r) return out;
  r.save(index);
  set_history(r, {&out});
  return out;
}

Tensor extreme(const Tensor& t, bool is_max) {
  Tensor out = ops::extreme(t, is_max);
  if (!autograd::any_requires_grad({&t})) return out;
  return evenly_recorded(is_max ? "MaxBackward1" : "MinBackward1", t, out, std::nullopt, false,
                         true);
}

Tensor amax(const Tensor& t, const Dims& dims, bool keepdim, bool is_max) {
  Tensor out = ops::amax(t, dims, keepdim, is_max);
  if (!autograd::any_requires_grad({&t})) return out;
  return evenly_recorded(is_max ? "AmaxBackward0" : "AminBackward0", t, out, dims, keepdim);
}

Pair aminmax(const Tensor& t, const Dims& dims, bool keepdim) {
  Pair r = ops::aminmax(t, dims, keepdim);
  if (!autograd::any_requires_grad({&t}) || !autograd::is_differentiable_dtype(r.first.dtype()))
    return r;
  Recorder rec =
      record("AminmaxBackward0", {&t}, [dims, keepdim](const FormulaNode&, const Grads& g, S s) {
        return Grads{
            add(evenly(g[0], s[0], s[1], dims, keepdim), evenly(g[1], s[0], s[2], dims, keepdim))};
      });
  rec.save(t);
  rec.save_output(r.first, 0);
  rec.save_output(r.second, 1);
  set_history(rec, {&r.first, &r.second});
  return r;
}

Tensor median_all(const Tensor& t, bool ignore_nan) {
  Tensor out = ops::median_all(t, ignore_nan);
  if (!autograd::any_requires_grad({&t})) return out;
  return evenly_recorded(ignore_nan ? "NanmedianBackward0" : "MedianBackward0", t, out,
                         std::nullopt, false, true);
}

Pair extreme_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max) {
  Pair r = ops::extreme_dim(t, dim, keepdim, is_max);
  if (!autograd::any_requires_grad({&t})) return r;
  return picked_along(is_max ? "MaxBackward0" : "MinBackward0", t, std::move(r), dim, !keepdim);
}

Pair sort(const Tensor& t, int64_t dim, bool descending) {
  Pair r = ops::sort(t, dim, descending);
  if (!autograd::any_requires_grad({&t})) return r;
  return picked_along("SortBackward0", t, std::move(r), dim, false);
}

Pair topk(const Tensor& t, int64_t k, int64_t dim, bool largest) {
  Pair r = ops::topk(t, k, dim, largest);
  if (!autograd::any_requires_grad({&t})) return r;
  return picked_along("TopkBackward0", t, std::move(r), dim, false);
}

Pair kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  Pair r = ops::kthvalue(t, k, dim, keepdim);
  if (!autograd::any_requires_grad({&t})) return r;
  return picked_along("KthvalueBackward0", t, std::move(r), dim, !keepdim);
}

Pair median(const Tensor& t, int64_t dim, bool keepdim, bool ignore_nan) {
  Pair r = ops::median(t, dim, keepdim, ignore_nan);
  if (!autograd::any_requires_grad({&t})) return r;
  return picked_along(ignore_nan ? "NanmedianBackward1" : "MedianBackward1", t, std::move(r), dim,
                      !keepdim);
}

Pair mode(const Tensor& t, int64_t dim, bool keepdim) {
  Pair r = ops::mode(t, dim, keepdim);
  if (!autograd::any_requires_grad({&t})) return r;
  return picked_along("ModeBackward0", t, std::move(r), dim, !keepdim);
}

Pair cummax(const Tensor& t, int64_t dim, bool is_max) {
  Pair r = is_max ? ops::cummax(t, dim) : ops::cummin(t, dim);
  if (!autograd::any_requires_grad({&t})) return r;
  return picked_along(is_max ? "CummaxBackward0" : "CumminBackward0", t, std::move(r), dim, false);
}

}  // namespace genesis::ag

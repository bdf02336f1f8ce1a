// quantile and nanquantile under autograd (Note [Quantile's gradient]).
#include <optional>
#include <string>

#include "autograd/formula_helpers.h"
#include "ops/convert.h"
#include "ops/index_ops.h"
#include "ops/reduce.h"
#include "ops/sort.h"

namespace genesis::ag {

// Note [Quantile's gradient]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// PyTorch differentiates quantile through its composition: sort the rows, gather the items at
// the ranks below and above q * (n - 1), and lerp between them by the rank's fraction. genesis
// composes the same steps of recorded ops when the input or q requires grad: the sort and the
// ranks' floor and ceil are plain (integer positions), the sorted positions pick the items of
// the unsorted rows with a recorded gather, and the interpolation is recorded arithmetic. So
// the input's gradient goes to the two items each quantile reads ((1 - w) and w, 1/2 each for
// midpoint, all of it for lower, higher and nearest), and q's, in linear mode only, is
// (above - below) * (n - 1), as PyTorch's. The ranks are PyTorch's: a row holding NaN (quantile)
// reads its last sorted item, a NaN, so the gradient goes there; nanquantile's rank is
// q * (valid - 1), 0 where that is negative (a row of NaNs). The arithmetic is ops::quantile's
// (below + (above - below) * w, (below + above) / 2), so the values do not change with grad.
Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation, bool ignore_nan, const char* op) {
  if (!autograd::any_requires_grad({&t, &q}))
    return ops::quantile(t, q, dim, keepdim, interpolation, ignore_nan, op);
  int64_t d = ops::check_quantile(t, q, dim, interpolation, op);
  Tensor input = dim && t.ndim() > 0 ? t : reshape(t, Shape{-1});
  Tensor rows = movedim(input, Shape{d}, Shape{-1});  // [..., n], recorded
  int64_t n = rows.sizes().back();
  auto [sorted, positions] = ops::sort(rows, -1, false);
  Tensor nans = ops::sum(is_nan(sorted), Dims{Shape{-1}}, true, ScalarType::Int64);  // [..., 1]
  Shape q_shape(static_cast<size_t>(rows.ndim() - 1), 1);
  q_shape.push_back(q.numel());
  Tensor qs = reshape(q, q_shape);  // [1, ..., 1, Q]
  Tensor ranks;                     // [..., Q], differentiable in q
  if (ignore_nan) {
    Tensor scale =
        ops::to(ops::binary(BinaryOp::Sub, Scalar(n - 1), nans, op), t.dtype(), t.device(), false);
    ranks = mul(qs, scale);
    ranks = ag::where(ops::binary(BinaryOp::Lt, ranks, num(0.0), op), num(0.0), ranks);
  } else {
    Shape target = nans.sizes();
    target.back() = q.numel();
    ranks = expand(mul(qs, num(static_cast<double>(n - 1))), target);
    ranks = ag::where(ops::binary(BinaryOp::Gt, nans, Scalar(int64_t{0}), op),
                      num(static_cast<double>(n - 1)), ranks);
  }
  // The items of the rows at sorted rank r (a float tensor of whole numbers).
  auto at = [&](const Tensor& r) {
    Tensor rank = ops::to(r, ScalarType::Int64, t.device(), false);
    return gather(rows, -1, ops::gather(positions, -1, rank));
  };
  Tensor lo = ops::unary(UnaryOp::Floor, ranks, op);
  Tensor result;
  if (interpolation == "lower") {
    result = at(lo);
  } else if (interpolation == "higher") {
    result = at(ops::unary(UnaryOp::Ceil, ranks, op));
  } else if (interpolation == "nearest") {
    result = at(ops::unary(UnaryOp::Round, ranks, op));
  } else {
    Tensor below = at(lo), above = at(ops::unary(UnaryOp::Ceil, ranks, op));
    result = interpolation == "midpoint" ? mul(add(below, above), num(0.5))
                                         : add(below, mul(sub(above, below), sub(ranks, lo)));
  }
  // [..., Q] -> [Q, ...] with the reduced dim dropped (or kept as 1), as ops::quantile.
  if (keepdim && t.ndim() > 0) {
    if (dim) {
      result = movedim(unsqueeze(result, -2), Shape{-2}, Shape{d});
    } else {
      Shape s(static_cast<size_t>(t.ndim()), 1);
      s.push_back(q.numel());
      result = reshape(result, s);
    }
  }
  result = movedim(result, Shape{-1}, Shape{0});
  if (q.ndim() == 0) result = squeeze(result, Shape{0});
  return contiguous(result);
}

}  // namespace genesis::ag

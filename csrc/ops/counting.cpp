#include "ops/counting.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/scalar.h"
#include "cpu/counting.h"
#include "cuda/counting.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/index_reduce.h"
#include "ops/join.h"
#include "ops/reduce.h"
#include "ops/search.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

// A full-length source of ones without the memory: a 0-d one expanded to n items.
Tensor ones_like_n(int64_t n, ScalarType dtype, Device device) {
  return expand(full(Shape{}, Scalar(int64_t{1}), dtype, device), Shape{n});
}

// counts[v] += 1 for each item v of the 1-d int32 or int64 `index`, every item already known to
// lie in [0, counts.numel()): straight from the items, no ones to add.
void count_into(const Tensor& index, const Tensor& counts) {
  Tensor values = contiguous(index);
  if (values.is_cuda())
    cuda::count_values(values, counts);
  else
    cpu::count_values(values, counts);
}

void check_histogram_dtype(const Tensor& t, const char* what, const char* op) {
  GENESIS_CHECK_TYPE(t.dtype() == ScalarType::Float32 || t.dtype() == ScalarType::Float64, op,
                     "expected a float32 or float64 ", what, ", but got dtype ",
                     scalar_type_name(t.dtype()));
}

// The histogram of `input` over the 1-d `edges` (its dtype and device): bin k takes
// edge[k] <= x < edge[k + 1], the last bin also x == edge[last]; other items and NaNs go to a
// spare bin that is dropped.
std::pair<Tensor, Tensor> histogram_over(const Tensor& input, const Tensor& edges,
                                         const std::optional<Tensor>& weight, bool density,
                                         const char* op) {
  if (weight) {
    GENESIS_CHECK_VALUE(weight->sizes() == input.sizes(), op,
                        "expected weight of the input's shape ", shape_str(input.sizes()),
                        ", but got ", shape_str(weight->sizes()));
    GENESIS_CHECK_TYPE(weight->dtype() == input.dtype(), op,
                       "expected weight of the input's dtype ", scalar_type_name(input.dtype()),
                       ", but got ", scalar_type_name(weight->dtype()));
    GENESIS_CHECK(weight->device() == input.device(), op, "expected weight on ",
                  input.device().str());
  }
  int64_t bins = edges.numel() - 1;
  Tensor x = reshape(input, Shape{-1});
  Tensor pos = binary(BinaryOp::Sub, searchsorted(edges, x, false, true, std::nullopt),
                      Scalar(int64_t{1}), op);
  pos = clamp(pos, Scalar(int64_t{0}), Scalar(bins - 1));
  Tensor inside = binary(BinaryOp::LogicalAnd, binary(BinaryOp::Ge, x, narrow(edges, 0, 0, 1), op),
                         binary(BinaryOp::Le, x, narrow(edges, 0, bins, 1), op), op);
  pos = where(inside, pos, Scalar(bins));
  Tensor hist = full(Shape{bins + 1}, Scalar(0.0), input.dtype(), input.device(), op);
  index_add_(
      hist, 0, pos,
      weight ? reshape(*weight, Shape{-1}) : ones_like_n(x.numel(), input.dtype(), input.device()),
      Scalar(int64_t{1}), op);
  hist = narrow(hist, 0, 0, bins);
  if (density) {
    Tensor widths = binary(BinaryOp::Sub, narrow(edges, 0, 1, bins), narrow(edges, 0, 0, bins), op);
    Tensor total = sum(hist, std::nullopt, false, std::nullopt);
    hist = binary(BinaryOp::Div, hist, binary(BinaryOp::Mul, widths, total, op), op);
  }
  return {contiguous(hist), edges};
}

}  // namespace

std::pair<Tensor, Tensor> histogram(const Tensor& input, int64_t bins,
                                    std::optional<std::pair<double, double>> range,
                                    const std::optional<Tensor>& weight, bool density) {
  const char* op = "histogram";
  check_histogram_dtype(input, "input", op);
  GENESIS_CHECK_VALUE(bins > 0, op, "bins must be positive, but got ", bins);
  double lo = 0, hi = 1;  // an empty input without a range: [0, 1], as PyTorch
  if (range) {
    lo = range->first, hi = range->second;
    GENESIS_CHECK_VALUE(lo <= hi, op, "min should not exceed max, but got min ", lo, " max ", hi);
  } else if (input.numel() > 0) {
    Tensor ends = to(stack({extreme(input, false), extreme(input, true)}, 0), ScalarType::Float64,
                     Device{}, false);
    lo = ends.data_as<double>()[0];
    hi = ends.data_as<double>()[1];
  }
  GENESIS_CHECK_VALUE(std::isfinite(lo) && std::isfinite(hi), op, "range [", lo, ", ", hi,
                      "] is not finite");
  if (lo == hi) lo -= 0.5, hi += 0.5;
  // genesis's linspace: each edge is the dtype value nearest the exact one (PyTorch's CPU
  // linspace can differ in the last bit), so counts can differ from PyTorch's only for items
  // within a rounding of an edge.
  return histogram_over(input, linspace(lo, hi, bins + 1, input.dtype(), input.device()), weight,
                        density, op);
}

std::pair<Tensor, Tensor> histogram(const Tensor& input, const Tensor& edges,
                                    const std::optional<Tensor>& weight, bool density) {
  const char* op = "histogram";
  check_histogram_dtype(input, "input", op);
  GENESIS_CHECK_VALUE(edges.ndim() == 1 && edges.numel() >= 2, op,
                      "expected 1-d bin edges with at least 2 items, but got shape ",
                      shape_str(edges.sizes()));
  GENESIS_CHECK_TYPE(edges.dtype() == input.dtype(), op, "expected bin edges of dtype ",
                     scalar_type_name(input.dtype()), ", but got ",
                     scalar_type_name(edges.dtype()));
  GENESIS_CHECK(edges.device() == input.device(), op, "expected bin edges on ",
                input.device().str());
  return histogram_over(input, contiguous(edges), weight, density, op);
}

Tensor bincount(const Tensor& input, const std::optional<Tensor>& weights, int64_t minlength) {
  const char* op = "bincount";
  GENESIS_CHECK_TYPE(is_integral(input.dtype(), false), op,
                     "expected a tensor of non-negative integers, but got dtype ",
                     scalar_type_name(input.dtype()));
  GENESIS_CHECK_VALUE(input.ndim() == 1, op,
                      "expected a 1-d tensor of non-negative integers, but it has ", input.ndim(),
                      " dims");
  GENESIS_CHECK_VALUE(minlength >= 0, op, "minlength must be non-negative, but got ", minlength);
  ScalarType dtype = ScalarType::Int64;
  if (weights) {
    GENESIS_CHECK_VALUE(weights->ndim() == 1 && weights->numel() == input.numel(), op,
                        "expected 1-d weights of the input's length ", input.numel(),
                        ", but got weights of shape ", shape_str(weights->sizes()));
    GENESIS_CHECK(weights->device() == input.device(), op, "expected weights on ",
                  input.device().str(), ", but they are on ", weights->device().str());
    dtype = weights->dtype() == ScalarType::Float32 ? ScalarType::Float32 : ScalarType::Float64;
  }
  // As PyTorch: an empty input gives minlength int64 zeros, weights or not.
  if (input.numel() == 0)
    return full(Shape{minlength}, Scalar(int64_t{0}), ScalarType::Int64, input.device(), op);
  bool direct = input.dtype() == ScalarType::Int64 || input.dtype() == ScalarType::Int32;
  Tensor index = direct ? input : to(input, ScalarType::Int64, input.device(), false);
  // The one wait for the device: the smallest value (checked) and the largest (the length),
  // on CUDA read in one pass.
  Tensor ends;
  if (input.is_cuda()) {
    index = contiguous(index);
    Tensor range = Tensor::empty(Shape{2}, ScalarType::Int64, input.device());
    cuda::value_range(index, range);
    ends = to(range, ScalarType::Int64, Device{}, false);
  } else {
    ends = to(stack({extreme(input, false), extreme(input, true)}, 0), ScalarType::Int64, Device{},
              false);
  }
  int64_t lowest = ends.data_as<int64_t>()[0], highest = ends.data_as<int64_t>()[1];
  GENESIS_CHECK_VALUE(lowest >= 0, op, "expected non-negative values, but got ", lowest);
  int64_t length = std::max(highest + 1, minlength);
  Tensor out = full(Shape{length}, Scalar(int64_t{0}), dtype, input.device(), op);
  if (!weights) {
    count_into(index, out);
    return out;
  }
  index_add_(out, 0, index, to(*weights, dtype, input.device(), false), Scalar(int64_t{1}), op);
  return out;
}

// Note [histc bins]: PyTorch's CPU histc puts item x in bin trunc((x - lo) * bins / (hi - lo)),
// each operation rounded to the input's dtype, with lo and hi rounded to it first, and x = hi
// in the last bin (it does not search the linspace edges, which can disagree with that formula
// by one bin right at an edge). genesis computes the same formula with tensor ops in the
// input's dtype on every device, so its counts equal PyTorch's CPU counts item for item.
Tensor histc(const Tensor& input, int64_t bins, double min, double max) {
  const char* op = "histc";
  GENESIS_CHECK_TYPE(is_floating_point(input.dtype()), op,
                     "expected a floating point tensor, but got dtype ",
                     scalar_type_name(input.dtype()));
  GENESIS_CHECK_VALUE(bins > 0, op, "bins must be positive, but got ", bins);
  double lo = min, hi = max;
  if (lo == hi && input.numel() > 0) {  // the data's range, in one wait for the device
    Tensor ends = to(stack({extreme(input, false), extreme(input, true)}, 0), ScalarType::Float64,
                     Device{}, false);
    lo = ends.data_as<double>()[0];
    hi = ends.data_as<double>()[1];
  }
  if (lo == hi) lo -= 1, hi += 1;
  GENESIS_CHECK_VALUE(std::isfinite(lo) && std::isfinite(hi), op, "range of [", lo, ", ", hi,
                      "] is not finite");
  GENESIS_CHECK_VALUE(lo < hi, op, "max must be larger than min, but got min=", lo, ", max=", hi);
  ScalarType dtype = input.dtype();
  double left = round_to_dtype(lo, dtype), right = round_to_dtype(hi, dtype);
  double width = round_to_dtype(right - left, dtype);
  Tensor x = reshape(input, Shape{-1});
  // Items outside [left, right] and NaNs go to the spare bin `bins`, dropped at the end; they
  // are replaced by `left` first, so that no infinity or NaN is converted to an integer.
  Tensor inside = binary(BinaryOp::LogicalAnd, binary(BinaryOp::Ge, x, Scalar(left), op),
                         binary(BinaryOp::Le, x, Scalar(right), op), op);
  Tensor kept = where(inside, x, Scalar(left));
  Tensor scaled =
      binary(BinaryOp::Div,
             binary(BinaryOp::Mul, binary(BinaryOp::Sub, kept, Scalar(left), op), Scalar(bins), op),
             Scalar(width), op);
  // Truncation: items inside the range give 0 .. bins (hi itself), clamped to the last bin.
  Tensor pos = clamp(to(scaled, ScalarType::Int64, input.device(), false), Scalar(int64_t{0}),
                     Scalar(bins - 1));
  pos = where(inside, pos, Scalar(bins));
  Tensor counts = full(Shape{bins + 1}, Scalar(int64_t{0}), ScalarType::Int64, input.device(), op);
  count_into(pos, counts);
  return to(narrow(counts, 0, 0, bins), dtype, input.device(), false);
}

}  // namespace genesis::ops

#include "ops/reduce.h"

#include <cmath>
#include <limits>

#include "core/errors.h"
#include "core/scalar.h"
#include "cpu/min_max.h"
#include "cpu/reduce.h"
#include "cpu/softmax.h"
#include "cuda/reduce.h"
#include "cuda/softmax.h"
#include "fusion/group.h"
#include "ops/convert.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/views.h"
#include "vocab/reducers.h"

namespace genesis::ops {

namespace {

// The input as a contiguous [outer, reduce, inner] block and the result's sizes.
struct Layout {
  Tensor in;
  ReduceShape shape;
  Shape out_sizes;
};

Layout layout(const Tensor& t, const Dims& dims, bool keepdim, const char* name) {
  const int64_t nd = t.ndim();
  std::vector<bool> reduced(static_cast<size_t>(nd), !dims || dims->empty());
  if (dims && !dims->empty()) {
    for (int64_t d : *dims) {
      int64_t w = wrap_dim(d, nd, name);
      if (nd == 0) continue;
      GENESIS_CHECK(!reduced[w], name, "dim ", w, " appears multiple times in the list of dims");
      reduced[w] = true;
    }
  }
  Layout l;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[d] || keepdim) l.out_sizes.push_back(reduced[d] ? 1 : t.sizes()[d]);
  // The reduced dims form one block when no kept dim of size > 1 lies between them.
  bool block = true;
  int64_t lo = -1, hi = -1;
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[d] && t.sizes()[d] != 1) {
      if (lo < 0) lo = d;
      hi = d;
    }
  for (int64_t d = lo; lo >= 0 && d <= hi; ++d)
    if (!reduced[d] && t.sizes()[d] != 1) block = false;
  if (block) {
    l.in = contiguous(t);
    for (int64_t d = 0; d < nd; ++d) {
      int64_t s = t.sizes()[d];
      if (lo < 0 || d < lo)
        l.shape.outer *= s;
      else if (d <= hi)
        l.shape.reduce *= s;  // kept dims inside the block have size 1
      else
        l.shape.inner *= s;
    }
    if (lo < 0) {  // only size-1 dims reduced
      l.shape.outer = t.numel();
      l.shape.reduce = 1;
      l.shape.inner = 1;
    }
    return l;
  }
  Shape order;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[d]) order.push_back(d);
  for (int64_t d = 0; d < nd; ++d)
    if (reduced[d]) order.push_back(d);
  l.in = contiguous(permute(t, order));
  for (int64_t d = 0; d < nd; ++d) (reduced[d] ? l.shape.reduce : l.shape.outer) *= t.sizes()[d];
  return l;
}

void run(ReduceOp op, const Layout& l, const Tensor& out, const Tensor& index,
         const Tensor& center = Tensor(), ReduceFinish finish = {}) {
  // In a compiled region a reduction of rows may join the open fused group (Note [Row groups]).
  if (!index.defined() && l.shape.inner == 1 && fusion::defer_reduce(op, l.in, out, finish, center))
    return;
  // ... and a reduction of leading dims (outer 1) the open group's columns (Note [Column groups]).
  if (!index.defined() && !center.defined() && l.shape.outer == 1 && l.shape.inner > 1 &&
      fusion::defer_column_reduce(op, l.in, out, finish))
    return;
  if (l.in.is_cuda())
    cuda::reduce(op, l.in, l.shape, out, index, center, finish);
  else
    cpu::reduce(op, l.in, l.shape, out, index, center, finish);
}

Tensor filled(const Shape& sizes, double value, ScalarType dtype, Device device) {
  return full(sizes, Scalar(value), dtype, device, "reduce");
}

ScalarType sum_dtype(ScalarType in, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_floating_point(in) ? in : ScalarType::Int64;
}

Tensor accumulate(ReduceOp op, const Tensor& t, const Dims& dims, bool keepdim, ScalarType dtype,
                  ReduceFinish finish, double empty_value, const char* name) {
  if (is_floating_point(t.dtype()) && !is_floating_point(dtype))
    // Floats become the integer dtype as .to(dtype) makes them (1e10 as int32 is INT_MIN, as
    // PyTorch), not through int64 and a wrap.
    return accumulate(op, to(t, dtype, t.device(), false), dims, keepdim, dtype, finish,
                      empty_value, name);
  if ((op == ReduceOp::Sum || op == ReduceOp::Prod) && !is_floating_point(dtype) &&
      dtype != ScalarType::Int64) {
    // Integer sums run in int64; the narrower result wraps exactly as its own sum would.
    Tensor wide = accumulate(op, t, dims, keepdim, ScalarType::Int64, finish, empty_value, name);
    return to(wide, dtype, t.device(), false);
  }
  Tensor in = t.dtype() == dtype ? t : to(t, dtype, t.device(), false);
  Layout l = layout(in, dims, keepdim, name);
  if (l.shape.reduce == 0) return filled(l.out_sizes, empty_value, dtype, t.device());
  Tensor out = Tensor::empty(l.out_sizes, dtype, t.device());
  run(op, l, out, Tensor(), Tensor(), finish);
  return out;
}

// A max/argmax over nothing has no answer: IndexError for an empty dim (as PyTorch), the caller
// raises RuntimeError when no dim was given.
void check_nonempty(const Layout& l, const char* name) {
  GENESIS_CHECK_INDEX(l.shape.reduce > 0, name,
                      "expected a non-zero size along the reduced dims: there is no identity "
                      "for this reduction");
}

}  // namespace

Tensor sum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  return accumulate(ReduceOp::Sum, t, dims, keepdim, sum_dtype(t.dtype(), dtype), {}, 0, "sum");
}

Tensor prod(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  return accumulate(ReduceOp::Prod, t, dims, keepdim, sum_dtype(t.dtype(), dtype), {}, 1, "prod");
}

Tensor mean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  ScalarType d = dtype ? *dtype : t.dtype();
  GENESIS_CHECK(is_floating_point(d), "mean",
                "could not infer output dtype: the input dtype must be a floating point dtype, "
                "got ",
                scalar_type_name(d), dtype ? "" : " (pass dtype=genesis.float32)");
  Tensor in = t.dtype() == d ? t : to(t, d, t.device(), false);
  Layout l = layout(in, dims, keepdim, "mean");
  ReduceFinish finish{true, static_cast<double>(l.shape.reduce), false};
  if (l.shape.reduce == 0) return filled(l.out_sizes, NAN, d, t.device());
  Tensor out = Tensor::empty(l.out_sizes, d, t.device());
  run(ReduceOp::Sum, l, out, Tensor(), Tensor(), finish);
  return out;
}

Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim, bool take_sqrt) {
  const char* name = take_sqrt ? "std" : "var";
  GENESIS_CHECK(is_floating_point(t.dtype()), name,
                "only floating point dtypes are supported, got ", scalar_type_name(t.dtype()));
  // 16-bit floats: both passes in float32, one rounding at the end.
  ScalarType work = t.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Tensor in = t.dtype() == work ? t : to(t, work, t.device(), false);
  Layout l = layout(in, dims, keepdim, name);
  Tensor out = Tensor::empty(l.out_sizes, work, t.device());
  if (l.shape.reduce == 0) {
    out = filled(l.out_sizes, NAN, work, t.device());
  } else {
    Tensor centre = Tensor::empty({l.shape.outputs()}, work, t.device());
    run(ReduceOp::Sum, l, centre, Tensor(), Tensor(),
        {true, static_cast<double>(l.shape.reduce), false});
    double divisor = std::max(0.0, static_cast<double>(l.shape.reduce) - correction);
    run(ReduceOp::SumSquares, l, out, Tensor(), centre, {true, divisor, take_sqrt});
  }
  return work == t.dtype() ? out : to(out, t.dtype(), t.device(), false);
}

Tensor all(const Tensor& t, const Dims& dims, bool keepdim) {
  return accumulate(ReduceOp::All, t, dims, keepdim, ScalarType::Bool, {}, 1, "all");
}

Tensor any(const Tensor& t, const Dims& dims, bool keepdim) {
  return accumulate(ReduceOp::Any, t, dims, keepdim, ScalarType::Bool, {}, 0, "any");
}

Tensor extreme(const Tensor& t, bool is_max) {
  const char* name = is_max ? "max" : "min";
  Layout l = layout(t, std::nullopt, false, name);
  GENESIS_CHECK(l.shape.reduce > 0, name,
                "the input has no elements; specify a dim (max/min of nothing is undefined)");
  Tensor out = Tensor::empty(l.out_sizes, t.dtype(), t.device());
  run(is_max ? ReduceOp::Max : ReduceOp::Min, l, out, Tensor());
  return out;
}

std::pair<Tensor, Tensor> extreme_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "max" : "min";
  Layout l = layout(t, Shape{dim}, keepdim, name);
  check_nonempty(l, name);
  Tensor values = Tensor::empty(l.out_sizes, t.dtype(), t.device());
  Tensor indices = Tensor::empty(l.out_sizes, ScalarType::Int64, t.device());
  run(is_max ? ReduceOp::ArgMax : ReduceOp::ArgMin, l, values, indices);
  return {values, indices};
}

Tensor arg_extreme(const Tensor& t, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "argmax" : "argmin";
  Dims dims = dim ? Dims(Shape{*dim}) : std::nullopt;
  Layout l = layout(t, dims, keepdim, name);
  GENESIS_CHECK(dim || l.shape.reduce > 0, name,
                "the input has no elements; specify a dim (argmax of nothing is undefined)");
  check_nonempty(l, name);
  Tensor indices = Tensor::empty(l.out_sizes, ScalarType::Int64, t.device());
  run(is_max ? ReduceOp::ArgMax : ReduceOp::ArgMin, l, Tensor(), indices);
  return indices;
}

Tensor amax(const Tensor& t, const Dims& dims, bool keepdim, bool is_max) {
  const char* name = is_max ? "amax" : "amin";
  Layout l = layout(t, dims, keepdim, name);
  check_nonempty(l, name);
  Tensor out = Tensor::empty(l.out_sizes, t.dtype(), t.device());
  run(is_max ? ReduceOp::Max : ReduceOp::Min, l, out, Tensor());
  return out;
}

std::pair<Tensor, Tensor> aminmax(const Tensor& t, const Dims& dims, bool keepdim) {
  const char* name = "aminmax";
  Layout l = layout(t, dims, keepdim, name);
  check_nonempty(l, name);
  Tensor lo = Tensor::empty(l.out_sizes, t.dtype(), t.device());
  Tensor hi = Tensor::empty(l.out_sizes, t.dtype(), t.device());
  if (l.in.is_cuda()) {
    cuda::reduce(ReduceOp::MinMax, l.in, l.shape, lo, Tensor(), Tensor(), {}, hi);
    return {lo, hi};
  }
  // The CPU reads rows in one pass (reduced items contiguous); columns take two reductions.
  if (l.shape.inner == 1 && l.shape.outputs() > 0 &&
      cpu::min_max_rows(l.in, l.shape.outer, l.shape.reduce, lo, hi))
    return {lo, hi};
  run(ReduceOp::Min, l, lo, Tensor());
  run(ReduceOp::Max, l, hi, Tensor());
  return {lo, hi};
}

Tensor norm2(const Tensor& t, const Dims& dims, bool keepdim) {
  GENESIS_CHECK_TYPE(is_floating_point(t.dtype()), "norm", "expected a floating point tensor, got ",
                     scalar_type_name(t.dtype()));
  // 16-bit floats are read as they are: the kernels square and sum them in float (CPU: double)
  // and round once, so no converted copy of the input is made.
  Layout l = layout(t, dims, keepdim, "norm");
  if (l.shape.reduce == 0) return filled(l.out_sizes, 0.0, t.dtype(), t.device());
  Tensor out = Tensor::empty(l.out_sizes, t.dtype(), t.device());  // every item is written
  run(ReduceOp::SumSquares, l, out, Tensor(), Tensor(), {false, 1, true});
  return out;
}

Tensor sum_exp(const Tensor& t, const Dims& dims, const Tensor& shift) {
  Layout l = layout(t, dims, true, "logsumexp");
  if (l.shape.reduce == 0) return filled(l.out_sizes, 0.0, t.dtype(), t.device());
  Tensor out = Tensor::empty(l.out_sizes, t.dtype(), t.device());
  Tensor centre = contiguous(to(shift, t.dtype(), t.device(), false));
  run(ReduceOp::SumExp, l, out, Tensor(), centre, {});
  return out;
}

namespace {

// Whether `dim` is t's innermost dim that is not of size 1, so that contiguous t is rows of it.
bool rows_along(const Tensor& t, int64_t dim) {
  if (t.ndim() == 0 || t.numel() == 0) return false;
  for (int64_t d = dim + 1; d < t.ndim(); ++d)
    if (t.sizes()[d] != 1) return false;
  return true;
}

// A CUDA softmax along `dim` takes the fused kernel (Note [Fused softmax]) when the tensor is
// rows of that dim, and the rows are not so few and long that one block a row would leave the GPU
// idle.
bool fused_softmax_fits(const Tensor& t, int64_t dim) {
  if (!t.is_cuda() || !rows_along(t, dim)) return false;
  int64_t cols = t.sizes()[dim], rows = t.numel() / cols;
  return cols <= 65536 || rows >= 1024;
}

// t (contiguous) as (rows, cols) of its dim `dim`.
Tensor as_rows(const Tensor& t, int64_t dim) {
  int64_t cols = t.sizes()[dim], rows = t.numel() / cols;
  return t.as_strided(Shape{rows, cols}, Shape{cols, 1}, t.storage_offset());
}

Tensor fused_softmax(const Tensor& t, int64_t dim, bool log) {
  Tensor x = contiguous(t);
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  int64_t cols = x.sizes()[dim], rows = x.numel() / cols;
  Shape rows_by_cols{rows, cols}, strides{cols, 1};
  cuda::softmax_last_dim(x.as_strided(rows_by_cols, strides, x.storage_offset()),
                         out.as_strided(rows_by_cols, strides, 0), log);
  return out;
}

}  // namespace

Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  ScalarType d = dtype ? *dtype : t.dtype();
  GENESIS_CHECK_TYPE(is_floating_point(d), name, "expects a floating point dtype, got ",
                     scalar_type_name(d));
  if (d == t.dtype() && fused_softmax_fits(t, wrap_dim(dim, t.ndim(), name)))
    return fused_softmax(t, wrap_dim(dim, t.ndim(), name), log);
  ScalarType work = d == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  Tensor x = t.dtype() == work ? t : to(t, work, t.device(), false);
  if (x.ndim() == 0) x = unsqueeze(x, 0);
  int64_t w = wrap_dim(dim, t.ndim(), name);
  Tensor result;
  if (x.numel() == 0) {
    result = Tensor::empty(x.sizes(), x.dtype(), x.device());  // a new tensor, never the input
  } else if (!x.is_cuda() && rows_along(x, w)) {               // Note [CPU row softmax]
    x = contiguous(x);
    result = Tensor::empty(x.sizes(), x.dtype(), x.device());
    cpu::softmax_rows(as_rows(x, w), as_rows(result, w), log);
  } else {
    // the row maxima without their indices (amax: the same element as max(dim)'s)
    Tensor m = amax(x, Shape{w}, true, true);
    Tensor shifted = binary(BinaryOp::Sub, x, m, name);
    Tensor e = unary(UnaryOp::Exp, shifted, name);
    Tensor s = sum(e, Shape{w}, true, std::nullopt);
    result = log ? binary(BinaryOp::Sub, shifted, unary(UnaryOp::Log, s, name), name)
                 : binary(BinaryOp::Div, e, s, name);
  }
  if (t.ndim() == 0) result = squeeze(result, Shape{0});
  return result.dtype() == d ? result : to(result, d, t.device(), false);
}

Tensor softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim, bool log) {
  int64_t w = wrap_dim(dim, y.ndim(), log ? "log_softmax" : "softmax");
  bool fits = !y.is_cuda() && !grad.is_cuda() && grad.dtype() == y.dtype() &&
              (y.dtype() == ScalarType::Float32 || y.dtype() == ScalarType::Float64) &&
              grad.sizes() == y.sizes() && rows_along(y, w);
  if (!fits) return Tensor();
  Tensor g = contiguous(grad), out = contiguous(y);
  Tensor result = Tensor::empty(out.sizes(), out.dtype(), out.device());
  cpu::softmax_rows_backward(as_rows(g, w), as_rows(out, w), as_rows(result, w), log);
  return result;
}

}  // namespace genesis::ops

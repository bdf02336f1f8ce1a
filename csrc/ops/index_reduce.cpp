#include "ops/index_reduce.h"

#include <cmath>
#include <functional>
#include <limits>

#include "core/errors.h"
#include "core/shape.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/elementwise.h"
#include "ops/index_common.h"
#include "ops/indexing.h"
#include "ops/views.h"

namespace genesis::ops {

// Note [Accumulating index ops]
// Each op is the key of its non-accumulating sibling (Note [Index-family ops]) run with an
// accumulating scatter (Note [Accumulating scatters]):
//   scatter_add_(x, d, i, s)     x[a0, ..., i, ..., an] += s[:i.size(0), ..., :i.size(n)]
//   index_add_(x, d, i, s, a)    x[:, ..., i] += a * s
//   put_(x, i, s, accumulate)    x.reshape(-1)[i] (+)= s.reshape(i.shape)
//   index_put_(x, (i, j), v, a)  x[i, j] (+)= v
// every value counting, duplicate indices included. scatter_reduce_ and index_reduce_ add the
// two things PyTorch defines on top: include_self=False first fills the indexed elements with
// the reduction's identity (0, 1, lowest, highest), and "mean" is a sum divided by a count,
// itself an accumulating scatter of ones into ones (include_self) or zeros, 0 counts read as 1;
// integer means divide with floor, as PyTorch. As in gather and scatter_, negative indices count
// from the end (PyTorch raises for them).

using namespace detail;

namespace {

enum class Reduction { Sum, Prod, Mean, Amax, Amin };

Reduction parse_reduction(const std::string& s, bool sum_too, const char* op) {
  if (sum_too && s == "sum") return Reduction::Sum;
  if (s == "prod") return Reduction::Prod;
  if (s == "mean") return Reduction::Mean;
  if (s == "amax") return Reduction::Amax;
  if (s == "amin") return Reduction::Amin;
  GENESIS_FAIL(ErrorKind::Runtime, op, "reduce argument must be one of ",
               sum_too ? "sum, prod, mean, amax or amin" : "prod, mean, amax or amin", ", got '", s,
               "'");
}

ScatterReduce mode_of(Reduction r) {
  switch (r) {
    case Reduction::Prod:
      return ScatterReduce::Prod;
    case Reduction::Amax:
      return ScatterReduce::Max;
    case Reduction::Amin:
      return ScatterReduce::Min;
    default:
      return ScatterReduce::Sum;
  }
}

// The value include_self=False starts each written element from.
Scalar identity(Reduction r, ScalarType t) {
  if (r == Reduction::Sum || r == Reduction::Mean) return Scalar(int64_t{0});
  if (r == Reduction::Prod) return Scalar(int64_t{1});
  bool max = r == Reduction::Amax;
  if (is_floating_point(t))
    return Scalar(max ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity());
  if (t == ScalarType::Bool) return Scalar(!max);
  int64_t lo = 0, hi = 0;
  switch (t) {
    case ScalarType::UInt8:
      lo = 0, hi = 255;
      break;
    case ScalarType::Int8:
      lo = -128, hi = 127;
      break;
    case ScalarType::Int16:
      lo = -32768, hi = 32767;
      break;
    case ScalarType::Int32:
      lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
      break;
    default:
      lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
      break;
  }
  return Scalar(max ? lo : hi);
}

// scatter(target, values, mode): accumulates values into target along the op's key;
// fill(target, value): sets the elements the key addresses.
using ScatterFn = std::function<void(const Tensor&, const Tensor&, ScatterReduce)>;
using FillFn = std::function<void(const Tensor&, const Scalar&)>;

void reduce_into(const Tensor& target, const Tensor& values, Reduction r, bool include_self,
                 const ScatterFn& scatter, const FillFn& fill, const char* op) {
  GENESIS_CHECK(r != Reduction::Mean || target.dtype() != ScalarType::Bool, op,
                "reduce='mean' is not defined for bool tensors");
  if (!include_self) fill(target, identity(r, target.dtype()));
  scatter(target, values, mode_of(r));
  if (r != Reduction::Mean) return;
  Scalar zero(int64_t{0}), one(int64_t{1});
  Tensor count = full(target.sizes(), include_self ? one : zero, target.dtype(), target.device());
  scatter(count, full(values.sizes(), one, target.dtype(), target.device()), ScatterReduce::Sum);
  count = where(binary(BinaryOp::Eq, count, zero, op), one, count);
  BinaryOp div = is_floating_point(target.dtype()) ? BinaryOp::Div : BinaryOp::FloorDiv;
  copy_(target, binary(div, target, count, op));
}

void check_same_dtype(const Tensor& self, const Tensor& src, const char* what, const char* op) {
  GENESIS_CHECK_TYPE(src.dtype() == self.dtype(), op, "expected ", what, " of dtype ",
                     scalar_type_name(self.dtype()), " (self's), but got ",
                     scalar_type_name(src.dtype()));
}

// The checked pieces of a scatter-like op: self and index at least 1-d, dim wrapped.
struct ScatterArgs {
  Tensor target, index, source;
  int64_t dim = 0;
  bool empty = false;  // an empty index: nothing to do (PyTorch skips the shape checks then)
};

ScatterArgs scatter_args(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         const char* op) {
  check_target(self, op);
  check_index(self, index, false, op);
  ScatterArgs a;
  a.target = at_least_1d(self);
  a.index = at_least_1d(index);
  a.dim = wrap_dim(dim, a.target.ndim(), op);
  if (src.defined()) {
    check_same_dtype(self, src, "src", op);
    check_same_device(self, src, "src", op);
  }
  a.empty = index.numel() == 0;
  if (a.empty) return a;
  check_gather_shapes(a.index, a.target, a.dim, false, "self", op);
  if (src.defined()) {
    Tensor s = at_least_1d(src);
    check_gather_shapes(a.index, s, a.dim, true, "src", op);
    // The source's leading block of index's shape (PyTorch reads src only there).
    for (int64_t k = 0; k < a.index.ndim(); ++k) s = narrow(s, k, 0, a.index.sizes()[k]);
    a.source = s;
  }
  return a;
}

// Note [Wide scatter sums]
// Each device follows PyTorch's own rounding there. PyTorch's CPU scatter_add, scatter(reduce=)
// and scatter_reduce sum and multiply float16 and bfloat16 in float32 and round once (256 + 1
// + 1 is 258 in bfloat16, not 256), while its index_add, put_ and index_put_ round after each
// addition: genesis's CPU does the same, running the scatter family's modes on a float32 copy
// of the tensor (one cast there and back, O(numel)) written back once. PyTorch's CUDA kernels
// combine 16-bit floats with 16-bit atomics (each addition rounded, 258 above is 256), and so
// does genesis's CUDA. The float32 copy was genesis's CUDA rule before, more exact than
// PyTorch's, and measured 0.40x torch at 2^24 float16 items and 0.90x at 2^28 (H200,
// benchmarks/results/2026-11-27-h200-scatter-after-memo.txt): the float32 copy of a 32 MB
// tensor no longer fits L2, where PyTorch's 16-bit atomics stay. A sort-based sum (CUB radix
// sort of the destinations, reduce-by-key in float32, no copy) was measured and rejected too:
// 1.1-1.2x torch for random indices from 2^26 items up, but 2-6x slower than atomics on sorted
// or segment indices at every size (benchmarks/results/2026-11-27-h200-sorted-scatter-probe.txt).
// amax/amin need no copy anywhere (exact in any type).
template <typename F>
void widened(const Tensor& target, const Tensor& values, bool wide_mode, const F& run) {
  ScalarType t = target.dtype();
  if (!wide_mode || target.is_cuda() || (t != ScalarType::Float16 && t != ScalarType::BFloat16))
    return run(target, values);
  Tensor wide = to(target, ScalarType::Float32, target.device(), /*copy=*/true);
  run(wide, to(values, ScalarType::Float32, values.device(), false));
  copy_(target, wide);  // reached only when nothing raised: target unchanged otherwise
}

ScatterReduce add_or_multiply(const std::string& reduce, const char* op) {
  if (reduce == "add") return ScatterReduce::Sum;
  if (reduce == "multiply") return ScatterReduce::Prod;
  GENESIS_FAIL(ErrorKind::Runtime, op, "reduce argument must be either add or multiply, got '",
               reduce, "'");
}

}  // namespace

// t[key] op= v for a gather key along a.dim: one scatter along the dim (Note [Gathering along a
// dim] in ops/indexing.cpp, Note [Scattering along a dim on the CPU] in cpu/index.cpp).
void put_along(const Tensor& t, const ScatterArgs& a, const Tensor& v, ScatterReduce mode) {
  scatter_along_dim(t, a.dim, a.index, v, mode);
}

void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  const char* op) {
  ScatterArgs a = scatter_args(self, dim, index, src, op);
  if (a.empty) return;
  renamed(op, [&] {
    widened(a.target, a.source, true,
            [&](const Tensor& t, const Tensor& v) { put_along(t, a, v, ScatterReduce::Sum); });
  });
}

void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
              const std::string& reduce, const char* op) {
  ScatterReduce mode = add_or_multiply(reduce, op);
  ScatterArgs a = scatter_args(self, dim, index, src, op);
  if (a.empty) return;
  renamed(op, [&] {
    widened(a.target, a.source, true,
            [&](const Tensor& t, const Tensor& v) { put_along(t, a, v, mode); });
  });
}

void scatter_value_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                    const std::string& reduce, const char* op) {
  ScatterReduce mode = add_or_multiply(reduce, op);
  ScatterArgs a = scatter_args(self, dim, index, Tensor(), op);
  if (a.empty) return;
  // The value once per index element (a broadcast 0-d tensor).
  Tensor one = full({}, value, self.dtype(), self.device(), op);
  renamed(op, [&] {
    widened(a.target, one, true,
            [&](const Tensor& t, const Tensor& v) { put_along(t, a, v, mode); });
  });
}

void scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     const std::string& reduce, bool include_self, const char* op) {
  Reduction r = parse_reduction(reduce, true, op);
  ScatterArgs a = scatter_args(self, dim, index, src, op);
  if (a.empty) return;
  IndexList key = gather_key(a.index, a.dim);
  bool wide = r == Reduction::Sum || r == Reduction::Prod || r == Reduction::Mean;
  renamed(op, [&] {
    widened(a.target, a.source, wide, [&](const Tensor& target, const Tensor& values) {
      reduce_into(
          target, values, r, include_self,
          [&](const Tensor& t, const Tensor& v, ScatterReduce m) { put_along(t, a, v, m); },
          [&](const Tensor& t, const Scalar& v) { index_fill(t, key, v); }, op);
    });
  });
}

namespace {

// The checked pieces of index_add_ / index_reduce_: source shaped as self but for dim, whose
// size is the index's length.
ScatterArgs index_args(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                       const char* op) {
  check_target(self, op);
  ScatterArgs a;
  a.index = vector_index(self, index, true, op);
  check_same_dtype(self, source, "source", op);
  check_same_device(self, source, "source", op);
  a.target = at_least_1d(self);
  a.source = at_least_1d(source);
  a.dim = wrap_dim(dim, a.target.ndim(), op);
  Shape want = a.target.sizes();
  want[a.dim] = a.index.numel();
  GENESIS_CHECK(a.source.sizes() == want && (source.ndim() == self.ndim() || self.ndim() <= 1), op,
                "source has shape ", shape_str(source.sizes()), ", but self has shape ",
                shape_str(self.sizes()), " and the index ", a.index.numel(), " elements (at dim ",
                a.dim, ")");
  a.empty = a.index.numel() == 0;
  return a;
}

// alpha in self's dtype, as PyTorch converts it (an integer tensor truncates a float alpha).
Scalar alpha_for(const Scalar& alpha, ScalarType t, const char* op) {
  if (t == ScalarType::Bool) return Scalar(alpha.to_double() != 0);
  if (!is_floating_point(t)) {
    GENESIS_CHECK(!alpha.is_floating() || std::isfinite(alpha.to_double()), op, "alpha ",
                  alpha.to_double(), " does not fit an integer tensor");
    return Scalar(alpha.to_int());
  }
  return Scalar(alpha.to_double());
}

}  // namespace

void index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                const Scalar& alpha, const char* op) {
  ScatterArgs a = index_args(self, dim, index, source, op);
  if (a.empty) return;
  Tensor values = a.source;
  bool unit = alpha.is_floating() ? alpha.to_double() == 1.0 : alpha.to_int() == 1;
  if (!unit) {
    Scalar k = alpha_for(alpha, self.dtype(), op);
    values = to(binary(BinaryOp::Mul, a.source, k, op), self.dtype(), self.device(), false);
  }
  renamed(op, [&] { index_put(a.target, at_dim(a.dim, a.index), values, ScatterReduce::Sum); });
}

void index_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                   const std::string& reduce, bool include_self, const char* op) {
  Reduction r = parse_reduction(reduce, false, op);
  GENESIS_CHECK_TYPE(self.dtype() != ScalarType::Bool, op,
                     "is not defined for bool tensors (as in PyTorch)");
  ScatterArgs a = index_args(self, dim, index, source, op);
  if (a.empty) return;
  IndexList key = at_dim(a.dim, a.index);
  renamed(op, [&] {
    reduce_into(
        a.target, a.source, r, include_self,
        [&](const Tensor& t, const Tensor& v, ScatterReduce m) { index_put(t, key, v, m); },
        [&](const Tensor& t, const Scalar& v) { index_fill(t, key, v); }, op);
  });
}

void put_(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate,
          const char* op) {
  check_target(self, op);
  check_index(self, index, false, op);
  check_same_dtype(self, source, "source", op);
  check_same_device(self, source, "source", op);
  GENESIS_CHECK_INDEX(source.numel() == index.numel(), op,
                      "expected source and index to have the same number of elements, but got "
                      "source.numel() = ",
                      source.numel(), ", index.numel() = ", index.numel());
  if (index.numel() == 0) return;
  // The flat view of self; a non-contiguous self is written through a contiguous copy.
  bool direct = self.is_contiguous();
  Tensor work = direct ? self : contiguous(self);
  Tensor flat = reshape(work, {-1});
  renamed(op, [&] {
    index_put(flat, {IndexItem::make_tensor(index)}, reshape(source, index.sizes()),
              accumulate ? ScatterReduce::Sum : ScatterReduce::None);
  });
  if (!direct) copy_(self, work);
}

IndexList index_put_key(const std::vector<Tensor>& indices, const char* op) {
  IndexList key;
  for (const Tensor& index : indices) {
    ScalarType t = index.dtype();
    GENESIS_CHECK_TYPE(t == ScalarType::Int64 || t == ScalarType::Int32 || t == ScalarType::Bool ||
                           t == ScalarType::UInt8,
                       op, "tensors used as indices must be int64, int32, bool or uint8, but got ",
                       scalar_type_name(t));
    // uint8 indices are masks, as in PyTorch.
    key.push_back(IndexItem::make_tensor(
        t == ScalarType::UInt8 ? to(index, ScalarType::Bool, index.device(), false) : index));
  }
  return key;
}

void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                bool accumulate, const char* op) {
  check_target(self, op);
  check_same_dtype(self, values, "values", op);
  check_same_device(self, values, "values", op);
  IndexList key = index_put_key(indices, op);
  renamed(op, [&] {
    index_put(self, key, values, accumulate ? ScatterReduce::Sum : ScatterReduce::None);
  });
}

}  // namespace genesis::ops

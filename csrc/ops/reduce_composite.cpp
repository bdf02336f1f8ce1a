#include "ops/reduce_composite.h"

#include <cmath>
#include <limits>

#include "core/errors.h"
#include "cuda/softmax.h"
#include "ops/composed.h"
#include "ops/convert.h"
#include "ops/elementwise.h"
#include "ops/join.h"
#include "ops/linalg_decomp.h"
#include "ops/views.h"

namespace genesis::ops {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor floating(const Tensor& t) {
  return is_floating_point(t.dtype()) ? t : to(t, default_float(), t.device(), false);
}

// The dims to reduce for a keepdim=true result to be squeezed back (all dims when absent).
Tensor drop_reduced(const Tensor& kept, const Tensor& t, const Dims& dims) {
  if (!dims || dims->empty()) return reshape(kept, {});
  Shape wrapped;
  for (int64_t d : *dims) wrapped.push_back(wrap_dim(d, t.ndim(), "reduce"));
  return squeeze(kept, wrapped);
}

Tensor is_nan(const Tensor& t) { return binary(BinaryOp::Ne, t, t, "isnan"); }

// A CUDA logsumexp over the last dim of contiguous rows short enough for a warp takes one
// kernel (Note [Fused row logsumexp] in kernels/softmax.cu).
bool fused_logsumexp_fits(const Tensor& x, const Dims& dims) {
  if (!x.is_cuda() || !x.is_contiguous() || x.ndim() == 0 || x.numel() == 0 ||
      !cuda::logsumexp_rows_fit(x.sizes().back()))
    return false;
  if (!dims || dims->empty()) return x.ndim() == 1;
  return dims->size() == 1 && wrap_dim((*dims)[0], x.ndim(), "logsumexp") == x.ndim() - 1;
}

Tensor fused_logsumexp(const Tensor& x, bool keepdim) {
  Shape kept = x.sizes();
  kept.back() = 1;
  Tensor out = Tensor::empty(kept, x.dtype(), x.device());
  cuda::logsumexp_last_dim(x, out);
  if (keepdim) return out;
  kept.pop_back();
  return reshape(out, kept);
}

// How many items each result of a reduction over `dims` sums.
int64_t reduced_count(const Tensor& t, const Dims& dims) {
  if (!dims || dims->empty() || t.ndim() == 0) return t.numel();  // a 0-d tensor's dim 0 is it
  int64_t n = 1;
  for (int64_t d : *dims) n *= t.sizes()[wrap_dim(d, t.ndim(), "logsumexp")];
  return n;
}

}  // namespace

Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim) {
  Tensor x = floating(t);
  if (x.numel() == 0) {  // log(0): -inf everywhere, as PyTorch
    Tensor s = sum(x, dims, keepdim, std::nullopt);
    return binary(BinaryOp::Add, s, Scalar(-kInf), "logsumexp");
  }
  if (fused_logsumexp_fits(x, dims)) {
    // keepdim over all dims of a 1-d tensor keeps its one dim, as over dim 0.
    return fused_logsumexp(x, keepdim);
  }
  if (x.dtype() == ScalarType::Float16 && reduced_count(x, dims) > 65504) {
    // The sum of exp(x - max) can reach the count, past float16's largest (65504): sum in
    // float32 and round the logarithm back (bfloat16's range holds any count).
    Tensor wide = logsumexp(to(x, ScalarType::Float32, x.device(), false), dims, keepdim);
    return to(wide, ScalarType::Float16, wide.device(), false);
  }
  Tensor m = amax(x, dims, true, true);
  // An infinite max is not subtracted: -inf - -inf would be NaN (all -inf gives -inf, +inf wins).
  Tensor finite =
      binary(BinaryOp::Ne, unary(UnaryOp::Abs, m, "logsumexp"), Scalar(kInf), "logsumexp");
  Tensor shift = where(finite, m, Scalar(0.0));
  // Note [Fused logsumexp]: the sum of exp(x - shift) is one reduction that shifts each value
  // as it loads it (the centre of var's second pass), so no exp(x - shift) tensor is written.
  Tensor out = binary(BinaryOp::Add, unary(UnaryOp::Log, sum_exp(x, dims, shift), "logsumexp"),
                      shift, "logsumexp");
  return keepdim ? out : drop_reduced(out, x, dims);
}

Tensor nansum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (!is_floating_point(t.dtype())) return sum(t, dims, keepdim, dtype);
  return sum(where(is_nan(t), Scalar(0.0), t), dims, keepdim, dtype);
}

Tensor nanmean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<ScalarType> dtype) {
  ScalarType d = dtype ? *dtype : t.dtype();
  GENESIS_CHECK(is_floating_point(d), "nanmean",
                "the input dtype must be a floating point dtype, got ", scalar_type_name(d));
  Tensor x = t.dtype() == d ? t : to(t, d, t.device(), false);
  Tensor present = unary(UnaryOp::BitNot, is_nan(x), "nanmean");
  // 16-bit floats sum and count in float32, and only the mean is rounded back: a count above
  // 65504 (float16's largest) or a sum past it would be infinite in the input's own dtype.
  bool narrow = is_16_bit_float(d);
  std::optional<ScalarType> acc = narrow ? std::optional(ScalarType::Float32) : std::nullopt;
  Tensor total = sum(where(present, x, Scalar(0.0)), dims, keepdim, acc);
  Tensor count = sum(present, dims, keepdim, acc.value_or(d));
  Tensor mean = binary(BinaryOp::Div, total, count, "nanmean");
  return narrow ? to(mean, d, mean.device(), false) : mean;
}

Tensor count_nonzero(const Tensor& t, const Dims& dims) {
  Tensor nonzero = t.dtype() == ScalarType::Bool
                       ? t
                       : binary(BinaryOp::Ne, t, Scalar(int64_t{0}), "count_nonzero");
  return sum(nonzero, dims, false, ScalarType::Int64);
}

Tensor vector_norm(const Tensor& t, double ord, const Dims& dims, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* op = "vector_norm";
  GENESIS_CHECK_TYPE(is_floating_point(t.dtype()), op,
                     "expected a floating point tensor as input, got ",
                     scalar_type_name(t.dtype()));
  if (dtype)
    GENESIS_CHECK_TYPE(is_floating_point(*dtype), op, "dtype must be a floating point dtype");
  Tensor x = dtype && *dtype != t.dtype() ? to(t, *dtype, t.device(), false) : t;
  if (ord == 2) return norm2(x, dims, keepdim);
  Tensor a = unary(UnaryOp::Abs, x, op);
  if (std::isinf(ord)) {
    if (x.numel() == 0 && ord > 0) return sum(a, dims, keepdim, std::nullopt);  // max of none: 0
    return amax(a, dims, keepdim, ord > 0);
  }
  if (ord == 0) return sum(binary(BinaryOp::Ne, a, Scalar(0.0), op), dims, keepdim, x.dtype());
  if (ord == 1) return sum(a, dims, keepdim, std::nullopt);
  if (is_16_bit_float(x.dtype())) {
    // |x|^p of a 16-bit float overflows (float16 3208^3) where the norm itself does not: raise
    // to p and sum in float32, and round the norm back once.
    Tensor wide = vector_norm(to(x, ScalarType::Float32, x.device(), false), ord, dims, keepdim,
                              std::nullopt);
    return to(wide, x.dtype(), x.device(), false);
  }
  Tensor powered = binary(BinaryOp::Pow, a, Scalar(ord), op);
  return binary(BinaryOp::Pow, sum(powered, dims, keepdim, std::nullopt), Scalar(1.0 / ord), op);
}

namespace {

// The plain ops matrix_norm is composed of (ops/composed.h).
struct PlainNormOps {
  static Tensor abs(const Tensor& t) { return unary(UnaryOp::Abs, t, "matrix_norm"); }
  static Tensor sum(const Tensor& t, const Shape& dims, bool keepdim) {
    return ops::sum(t, dims, keepdim, std::nullopt);
  }
  static Tensor amax(const Tensor& t, const Shape& dims, bool keepdim, bool is_max) {
    return ops::amax(t, dims, keepdim, is_max);
  }
  static Tensor norm2(const Tensor& t, const Shape& dims, bool keepdim) {
    return ops::norm2(t, dims, keepdim);
  }
  static Tensor permute(const Tensor& t, const Shape& dims) { return ops::permute(t, dims); }
  static Tensor svdvals(const Tensor& t) { return linalg_svdvals(t); }
  static Tensor squeeze(const Tensor& t, const Shape& dims) { return ops::squeeze(t, dims); }
  static Tensor unsqueeze(const Tensor& t, int64_t dim) { return ops::unsqueeze(t, dim); }
};

}  // namespace

Tensor matrix_norm(const Tensor& t, const std::string& ord, const Shape& dims, bool keepdim) {
  return compose_matrix_norm<PlainNormOps>(t, ord, dims, keepdim);
}

namespace {
struct PlainDiffOps {
  static Tensor cat(const std::vector<Tensor>& parts, int64_t dim) { return ops::cat(parts, dim); }
  static Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
    return ops::narrow(t, dim, start, length);
  }
  static Tensor subtract(const Tensor& later, const Tensor& earlier) {
    BinaryOp op = later.dtype() == ScalarType::Bool ? BinaryOp::Ne : BinaryOp::Sub;
    return binary(op, later, earlier, "diff");
  }
};
}  // namespace

Tensor diff(const Tensor& t, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  return compose_diff<PlainDiffOps>(t, n, dim, prepend, append);
}

}  // namespace genesis::ops

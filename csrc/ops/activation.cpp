#include "ops/activation.h"

#include <cmath>
#include <limits>

#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/elementwise_composed.h"
#include "ops/reduce.h"

namespace genesis::ops {

namespace {

void check_floating(const Tensor& a, const char* name) {
  GENESIS_CHECK_TYPE(is_floating_point(a.dtype()), name, "not supported for ",
                     scalar_type_name(a.dtype()), " tensors (only floating point)");
}

Tensor mul(const Operand& a, const Operand& b, const char* name) {
  return binary(BinaryOp::Mul, a, b, name);
}

Tensor positive(const Tensor& a, const char* name) {
  return binary(BinaryOp::Gt, a, Scalar(int64_t{0}), name);
}

// The 16-bit floats compute in float32 and round once at the end, as PyTorch's fused kernels.
Tensor widened(const Tensor& t) {
  return is_16_bit_float(t.dtype()) ? to(t, ScalarType::Float32, t.device(), false) : t;
}
Tensor narrowed(const Tensor& t, ScalarType dtype) {
  return t.dtype() == dtype ? t : to(t, dtype, t.device(), false);
}

// A bound truncated towards zero to an integer; one beyond int64 raises, as in PyTorch.
int64_t truncated(const Scalar& v, const char* name) {
  v.check_fits(ScalarType::Int64, name);  // also NaN and the infinities
  return v.to_int();
}

}  // namespace

Tensor gelu(const Tensor& a, const std::string& approximate) {
  GENESIS_CHECK_VALUE(approximate == "none" || approximate == "tanh", "gelu",
                      "approximate must be 'none' or 'tanh', but got '", approximate, "'");
  return unary(approximate == "none" ? UnaryOp::Gelu : UnaryOp::GeluTanh, a, "gelu");
}

Tensor softplus(const Tensor& a, double beta, double threshold) {
  const char* name = "softplus";
  if (beta == 1.0 && threshold == 20.0) return unary(UnaryOp::Softplus, a, name);
  check_floating(a, name);
  if (is_16_bit_float(a.dtype())) {
    // exp(beta * x) of a 16-bit float overflows below the threshold (float16 exp(11.4)): the
    // composition runs in float32 and rounds once, as the fused functor computes.
    Tensor wide = softplus(to(a, ScalarType::Float32, a.device(), false), beta, threshold);
    return to(wide, a.dtype(), a.device(), false);
  }
  // x where beta * x > threshold, log1p(exp(beta * x)) / beta elsewhere.
  Tensor bx = mul(a, Scalar(beta), name);
  Tensor soft = binary(BinaryOp::Div, unary(UnaryOp::Log1p, unary(UnaryOp::Exp, bx, name), name),
                       Scalar(beta), name);
  return where(binary(BinaryOp::Gt, bx, Scalar(threshold), name), a, soft);
}

Tensor elu(const Tensor& a, double alpha, double scale, double input_scale) {
  const char* name = "elu";
  if (alpha == 1.0 && scale == 1.0 && input_scale == 1.0) return unary(UnaryOp::Elu, a, name);
  check_floating(a, name);
  // scale * x above 0, scale * alpha * (exp(input_scale * x) - 1) at and below it.
  Tensor below = mul(unary(UnaryOp::Expm1, mul(a, Scalar(input_scale), name), name),
                     Scalar(alpha * scale), name);
  return where(positive(a, name), mul(a, Scalar(scale), name), below);
}

Tensor leaky_relu(const Tensor& a, double negative_slope) {
  const char* name = "leaky_relu";
  check_floating(a, name);
  return where(positive(a, name), a, mul(a, Scalar(negative_slope), name));
}

Tensor hardtanh(const Tensor& a, const Scalar& min_val, const Scalar& max_val) {
  const char* name = "hardtanh";
  GENESIS_CHECK_TYPE(a.dtype() != ScalarType::Bool, name, "not supported for bool tensors");
  GENESIS_CHECK_VALUE(!(min_val.to_double() > max_val.to_double()), name,
                      "min_val cannot be greater than max_val");
  if (is_floating_point(a.dtype())) return clamp(a, Operand(min_val), Operand(max_val));
  // Integer input keeps its dtype: the bounds are truncated to integers (PyTorch's result).
  int64_t lo = truncated(min_val, name), hi = truncated(max_val, name);
  Scalar(lo).check_fits(a.dtype(), name);
  Scalar(hi).check_fits(a.dtype(), name);
  GENESIS_CHECK(a.dtype() != ScalarType::UInt8 || (lo >= 0 && hi >= 0), name,
                "cannot do hardtanh on an unsigned type with negative limits");
  return clamp(a, Operand(Scalar(lo)), Operand(Scalar(hi)));
}

Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight) {
  const char* name = "lerp";
  check_floating(start, name);
  GENESIS_CHECK_TYPE(start.dtype() == end.dtype(), name, "expected end of dtype ",
                     scalar_type_name(start.dtype()), ", but got ", scalar_type_name(end.dtype()));
  // A 0-d weight stands for a number, as in PyTorch: any dtype (a bool one is 0 or 1).
  if (!weight.is_scalar())
    GENESIS_CHECK_TYPE(weight.tensor().ndim() == 0 || weight.tensor().dtype() == start.dtype(),
                       name, "expected weight of dtype ", scalar_type_name(start.dtype()),
                       ", but got ", scalar_type_name(weight.tensor().dtype()));
  // A bool weight becomes start's dtype, and a 0-d CPU weight beside CUDA tensors moves there
  // (the masks below are computed from it).
  if (!weight.is_scalar() &&
      (weight.tensor().dtype() == ScalarType::Bool || weight.tensor().device() != start.device())) {
    const Tensor& w = weight.tensor();
    ScalarType wt = w.dtype() == ScalarType::Bool ? start.dtype() : w.dtype();
    return lerp(start, end, Operand(to(w, wt, start.device(), false)));
  }
  if (!weight.is_scalar() && weight.tensor().ndim() == 0) {
    // A 0-d weight promotes only beside 0-d start and end (PyTorch's rule for 0-d operands).
    Operand both[3] = {Operand(start), Operand(end), weight};
    ScalarType rt = result_type(both, 3);
    if (rt != start.dtype() && is_floating_point(rt))
      return lerp(to(start, rt, start.device(), false), to(end, rt, end.device(), false), weight);
  }
  // PyTorch's formula: start + w * (end - start) for |w| < 0.5, end - (end - start) * (1 - w)
  // otherwise, so that w = 1 gives end exactly.
  const ScalarType dtype = start.dtype();
  Tensor s = widened(start), e = widened(end);
  Tensor diff = binary(BinaryOp::Sub, e, s, name);
  if (weight.is_scalar()) {
    double w = weight.scalar.to_double();
    if (std::fabs(w) < 0.5)
      return narrowed(binary(BinaryOp::Add, s, mul(diff, weight.scalar, name), name), dtype);
    return narrowed(binary(BinaryOp::Sub, e, mul(diff, Scalar(1.0 - w), name), name), dtype);
  }
  Tensor w = widened(weight.tensor());
  Tensor low = binary(BinaryOp::Add, s, mul(w, diff, name), name);
  Tensor one_minus = binary(BinaryOp::Sub, Scalar(1.0), w, name);
  Tensor high = binary(BinaryOp::Sub, e, mul(diff, one_minus, name), name);
  Tensor small = binary(BinaryOp::Lt, unary(UnaryOp::Abs, w, name), Scalar(0.5), name);
  return narrowed(where(small, low, high), dtype);
}

namespace {

Tensor addc(BinaryOp op, const Tensor& input, const Tensor& t1, const Tensor& t2,
            const Scalar& value, const char* name) {
  const Operand* operands[3];
  Operand a(input), b(t1), c(t2);
  operands[0] = &a, operands[1] = &b, operands[2] = &c;
  ScalarType dtype = result_type(operands, 3);
  if (op == BinaryOp::Div)
    GENESIS_CHECK_TYPE(is_floating_point(dtype), name,
                       "integer division is not supported; cast the tensors to a floating "
                       "point dtype first");
  GENESIS_CHECK_TYPE(is_floating_point(dtype) || !value.is_floating(), name,
                     "for integer inputs, value must be an integer, but got a float");
  if (!is_floating_point(dtype)) value.check_fits(dtype, name);  // as PyTorch: no wrapped value
  // In the common dtype (float32 for the 16-bit floats, rounded once at the end). An operand of
  // another dtype is converted to the common dtype first, as `*` and `/` would: an int32
  // 100000 beside float16 is inf.
  ScalarType compute = is_16_bit_float(dtype) ? ScalarType::Float32 : dtype;
  auto in_compute = [&](const Tensor& t) {
    if (t.dtype() == compute) return t;
    Tensor common = t.dtype() == dtype ? t : to(t, dtype, t.device(), false);
    return common.dtype() == compute ? common : to(common, compute, t.device(), false);
  };
  Tensor term = binary(op, in_compute(t1), in_compute(t2), name);
  if (value.to_double() != 1.0) term = mul(term, value, name);
  return narrowed(binary(BinaryOp::Add, in_compute(input), term, name), dtype);
}

}  // namespace

Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc(BinaryOp::Mul, input, t1, t2, value, "addcmul");
}

Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return addc(BinaryOp::Div, input, t1, t2, value, "addcdiv");
}

Tensor nan_to_num(const Tensor& a, double nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  const char* name = "nan_to_num";
  if (!is_floating_point(a.dtype())) return copy_to(a, a.dtype(), a.device());
  double big = largest_finite(a.dtype());
  Tensor r = where(isnan(a), Operand(Scalar(nan)), a);
  r = where(isposinf(a), Operand(Scalar(posinf.value_or(big))), r);
  r = where(isneginf(a), Operand(Scalar(neginf.value_or(-big))), r);
  (void)name;
  return r;
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  const char* name = "isclose";
  GENESIS_CHECK_TYPE(a.dtype() == b.dtype(), name,
                     "expected both inputs to have the same dtype, "
                     "but got ",
                     scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  GENESIS_CHECK_VALUE(rtol >= 0, name, "rtol must be greater than or equal to zero, but got ",
                      rtol);
  GENESIS_CHECK_VALUE(atol >= 0, name, "atol must be greater than or equal to zero, but got ",
                      atol);
  Tensor close = binary(BinaryOp::Eq, a, b, name);  // also the infinities of the same sign
  if (a.dtype() == ScalarType::Bool) return close;
  if (equal_nan)
    close = binary(BinaryOp::LogicalOr, close,
                   binary(BinaryOp::LogicalAnd, isnan(a), isnan(b), name), name);
  // Integers compare in the default float dtype, as PyTorch.
  ScalarType ft = is_floating_point(a.dtype()) ? a.dtype() : default_float();
  Tensor fa = a.dtype() == ft ? a : to(a, ft, a.device(), false);
  Tensor fb = b.dtype() == ft ? b : to(b, ft, b.device(), false);
  Tensor gap = unary(UnaryOp::Abs, binary(BinaryOp::Sub, fa, fb, name), name);
  Tensor tol = binary(BinaryOp::Add, mul(unary(UnaryOp::Abs, fb, name), Scalar(rtol), name),
                      Scalar(atol), name);
  // Only a finite `b` can be close by tolerance: an infinite one makes the tolerance infinite,
  // and |x - inf| <= inf would call every x close to it (and -inf close to inf). A NaN or an
  // infinite `a` gives a NaN or infinite gap against a finite tolerance, which compares false.
  Tensor within =
      binary(BinaryOp::LogicalAnd, binary(BinaryOp::Le, gap, tol, name), isfinite(fb), name);
  return binary(BinaryOp::LogicalOr, close, within, name);
}

namespace {

// Every element of a bool tensor is true (one wait for the device on CUDA).
bool all_true(const Tensor& mask) {
  Tensor every = all(mask, std::nullopt, false);
  Tensor host = every.is_cuda() ? copy_to(every, ScalarType::Bool, kCPU) : every;
  return *host.data_as<bool>();
}

}  // namespace

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all_true(isclose(a, b, rtol, atol, equal_nan));
}

bool equal(const Tensor& a, const Tensor& b) {
  GENESIS_CHECK(a.device() == b.device(), "equal", "expected both tensors on one device, but got ",
                a.device().str(), " and ", b.device().str());
  if (a.sizes() != b.sizes()) return false;
  return all_true(binary(BinaryOp::Eq, a, b, "equal"));
}

void assign_(const Tensor& self, const Tensor& result, const char* name) {
  check_writable(self, name);  // Note [Read-only storages]
  GENESIS_CHECK(result.sizes() == self.sizes(), name, "the result's shape ",
                shape_str(result.sizes()), " differs from the tensor's ", shape_str(self.sizes()));
  GENESIS_CHECK(can_cast(result.dtype(), self.dtype()), name, "result type ",
                scalar_type_name(result.dtype()), " can't be cast to the tensor's dtype ",
                scalar_type_name(self.dtype()));
  copy_(self, result);
}

}  // namespace genesis::ops

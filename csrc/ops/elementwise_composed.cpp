#include "ops/elementwise_composed.h"

#include <cmath>
#include <limits>

#include "core/errors.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/resize.h"

namespace genesis::ops {

namespace {

Tensor round_decimals(const Tensor& a, int64_t decimals, const char* name) {
  GENESIS_CHECK_TYPE(is_floating_point(a.dtype()), name, "decimals is not supported for ",
                     scalar_type_name(a.dtype()), " tensors (only floating point)");
  GENESIS_CHECK_VALUE(decimals >= -308 && decimals <= 308, name,
                      "decimals must be in [-308, 308], but got ", decimals);
  // The 16-bit floats compute in float32, so x * 10^d is not rounded to 16 bits in between.
  bool narrow = is_16_bit_float(a.dtype());
  Tensor x = narrow ? to(a, ScalarType::Float32, a.device(), false) : a;
  Scalar ten(std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals)));
  Tensor r;
  if (decimals >= 0)
    r = binary(BinaryOp::Div, unary(UnaryOp::Round, binary(BinaryOp::Mul, x, ten, name), name), ten,
               name);
  else
    r = binary(BinaryOp::Mul, unary(UnaryOp::Round, binary(BinaryOp::Div, x, ten, name), name), ten,
               name);
  return narrow ? to(r, a.dtype(), a.device(), false) : r;
}

Scalar inf(bool negative) {
  double v = std::numeric_limits<double>::infinity();
  return Scalar(negative ? -v : v);
}

}  // namespace

Tensor round(const Tensor& a, int64_t decimals, const char* name) {
  if (decimals == 0) return unary(UnaryOp::Round, a, name);
  return round_decimals(a, decimals, name);
}

void round_(const Tensor& self, int64_t decimals, const char* name) {
  if (decimals == 0) return unary_(UnaryOp::Round, self, name);
  Tensor r = round_decimals(self, decimals, name);
  copy_(self, r);
}

// x != x is the NaN test; for integers and bool it is all false, as wanted.
Tensor isnan(const Tensor& a) { return binary(BinaryOp::Ne, a, a, "isnan"); }

Tensor isinf(const Tensor& a) {
  if (!is_floating_point(a.dtype())) return binary(BinaryOp::Ne, a, a, "isinf");
  return binary(BinaryOp::Eq, unary(UnaryOp::Abs, a, "isinf"), inf(false), "isinf");
}

Tensor isposinf(const Tensor& a) {
  if (!is_floating_point(a.dtype())) return binary(BinaryOp::Ne, a, a, "isposinf");
  return binary(BinaryOp::Eq, a, inf(false), "isposinf");
}

Tensor isneginf(const Tensor& a) {
  if (!is_floating_point(a.dtype())) return binary(BinaryOp::Ne, a, a, "isneginf");
  return binary(BinaryOp::Eq, a, inf(true), "isneginf");
}

// |x| < inf is false for NaN and for the infinities.
Tensor isfinite(const Tensor& a) {
  if (!is_floating_point(a.dtype())) return binary(BinaryOp::Eq, a, a, "isfinite");
  return binary(BinaryOp::Lt, unary(UnaryOp::Abs, a, "isfinite"), inf(false), "isfinite");
}

// Note [out= arguments]
// Every op with an out= argument computes its result as usual and then copies it into `out`:
// one rule for all of them, and an `out` that overlaps an input is safe because the inputs
// were all read first. The price is one extra pass over the result. As PyTorch: `out` must be
// on the result's device, and the result dtype must be castable to out's under the in-place
// rule (float into int is refused; int into float is allowed). As PyTorch's resize_output, an
// `out` of another shape is resized to the result's (ops::resize_, Note [Resizing]): silently
// when it has no elements, else with PyTorch's deprecation UserWarning (given by the Python
// layer, python::write_out_warned). The checks come first, so a refused call leaves `out` as
// it was.
void write_out(Tensor& out, const Tensor& result, const char* name) {
  check_writable(out, name);  // named after the op, not the copy below
  GENESIS_CHECK(out.device() == result.device(), name, "expected out on ", result.device().str(),
                ", but it is on ", out.device().str());
  GENESIS_CHECK(can_cast(result.dtype(), out.dtype()), name, "result type ",
                scalar_type_name(result.dtype()), " can't be cast to the desired output type ",
                scalar_type_name(out.dtype()));
  if (out.sizes() != result.sizes()) resize_(out, result.sizes(), name);
  copy_(out, result);
}

}  // namespace genesis::ops

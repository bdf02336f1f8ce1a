#include "ops/elementwise.h"

#include <cmath>

#include "core/errors.h"
#include "core/loop_plan.h"
#include "cpu/elementwise.h"

#include "cuda/elementwise.h"
#include "fusion/group.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "ops/layout.h"

namespace genesis::ops {

namespace {

std::optional<ScalarType> promote_opt(std::optional<ScalarType> a, ScalarType b) {
  return a ? promote_types(*a, b) : b;
}

// PyTorch's combine of a higher-priority result (from tensors with dims) and a lower one: the
// lower one counts only when it is of a higher category.
std::optional<ScalarType> combine(std::optional<ScalarType> higher,
                                  std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating_point(*higher)) return higher;
  if (*higher == ScalarType::Bool || is_floating_point(*lower))
    return promote_types(*higher, *lower);
  return higher;
}

const char* type_word(ScalarType t) { return scalar_type_name(t); }

// The value of a 0-d (or one-element) CPU tensor as a number, for use with CUDA tensors.
Scalar scalar_of(const Tensor& t) {
  return GENESIS_DISPATCH_ALL_TYPES(t.dtype(), "item", [&]() -> Scalar {
    scalar_t v = *t.data_as<scalar_t>();
    if (is_floating_point(t.dtype())) return Scalar(cast_value<double>(v));
    if (t.dtype() == ScalarType::Bool) return Scalar(cast_value<bool>(v));
    return Scalar(cast_value<int64_t>(v));
  });
}

ScalarArg scalar_arg(const Scalar& s) {
  ScalarArg a;
  a.is_scalar = true;
  a.is_float = s.is_floating();
  a.d = s.to_double();
  a.i = s.to_int();
  return a;
}

// Picks the device of the op and turns CPU 0-d tensors next to CUDA tensors into numbers (as
// PyTorch allows); any other mix of devices is an error.
Device settle_devices(const Operand* const* operands, int n, const char* name) {
  std::optional<Device> device;
  for (int k = 0; k < n; ++k) {
    const Tensor& t = operands[k]->tensor();
    if (!t.defined()) continue;
    if (!device || (device->is_cpu() && t.is_cuda() && t.ndim() > 0)) device = t.device();
  }
  for (int k = 0; k < n; ++k) {
    const Tensor& t = operands[k]->tensor();
    if (!t.defined() || t.device() == *device) continue;
    if (t.device().is_cpu() && t.ndim() == 0 && device->is_cuda())
      continue;  // read as a number later
    GENESIS_FAIL(ErrorKind::Runtime, name,
                 "expected all tensors to be on the same device, but found at least two "
                 "devices, ",
                 device->str(), " and ", t.device().str());
  }
  return *device;
}

// Tensor operand k prepared for the loop: cast to `dtype`, broadcast to `shape`; CPU 0-d
// tensors on a CUDA op become numbers.
struct Prepared {
  Tensor owned;                      // a cast or broadcast copy of the view
  const Tensor* borrowed = nullptr;  // the operand itself, when it needs neither
  ScalarArg scalar;
  const Tensor& tensor() const { return borrowed != nullptr ? *borrowed : owned; }
};
// The result may borrow o's tensor: o must outlive it. `as_number`: read a 0-d tensor as a
// number (Note [0-d tensors beside 16-bit floats]).
Prepared prepare(const Operand& o, ScalarType dtype, const Shape& shape, Device device,
                 bool as_number = false) {
  Prepared p;
  if (o.is_scalar()) {
    p.scalar = scalar_arg(o.scalar);
    return p;
  }
  const Tensor& t = o.tensor();
  if (as_number || t.device() != device) {  // a CPU 0-d tensor on a CUDA op
    p.scalar = scalar_arg(scalar_of(t));
    if (p.scalar.is_float && !is_floating_point(dtype)) p.scalar.is_float = false;
    return p;
  }
  Tensor converted = t.dtype() == dtype ? Tensor() : to(t, dtype, device, false);
  const Tensor& cast = converted.defined() ? converted : t;
  if (&cast == &t && t.sizes() == shape)
    p.borrowed = &t;
  else
    p.owned = cast.sizes() == shape ? cast : broadcast_to(cast, shape);
  return p;
}

Shape broadcast_all(const Operand* const* operands, int n, const char* name) {
  Shape shape;
  bool first = true;
  for (int k = 0; k < n; ++k) {
    if (operands[k]->is_scalar()) continue;
    const Shape& s = operands[k]->tensor().sizes();
    if (first)
      shape = s;
    else if (s != shape)
      shape = broadcast_shapes(shape, s, name);
    first = false;
  }
  return shape;
}

// The dtype the loop computes in and the dtype it writes, checked for the op.
struct Dtypes {
  ScalarType compute, out;
};
Dtypes binary_dtypes(BinaryOp op, const Operand& a, const Operand& b, const char* name) {
  const Operand* both[2] = {&a, &b};
  ScalarType r = result_type(both, 2);
  if (op == BinaryOp::Div) {
    ScalarType c = is_floating_point(r) ? r : default_float();
    return {c, c};
  }
  if (is_float_result(op)) {
    GENESIS_CHECK_TYPE(op != BinaryOp::Hypot || is_floating_point(r), name, "not supported for ",
                       type_word(r), " tensors (only floating point)");
    ScalarType c = is_floating_point(r) ? r : default_float();
    return {c, c};
  }
  if (op == BinaryOp::Heaviside && !a.is_scalar() && !b.is_scalar())
    GENESIS_CHECK_TYPE(a.tensor().dtype() == b.tensor().dtype(), name,
                       "input and values must have the same dtype, but got ",
                       type_word(a.tensor().dtype()), " and ", type_word(b.tensor().dtype()));
  if (is_comparison(op)) return {r, ScalarType::Bool};
  if (is_bitwise(op)) {
    GENESIS_CHECK_TYPE(!is_floating_point(r), name, "not supported for ", type_word(r),
                       " tensors (only integer and bool)");
    GENESIS_CHECK_TYPE(
        r != ScalarType::Bool || (op != BinaryOp::ShiftLeft && op != BinaryOp::ShiftRight), name,
        "not supported for bool tensors (only integer)");
    return {r, r};
  }
  bool bool_tensor = (!a.is_scalar() && a.tensor().dtype() == ScalarType::Bool) ||
                     (!b.is_scalar() && b.tensor().dtype() == ScalarType::Bool);
  GENESIS_CHECK_TYPE(op != BinaryOp::Sub || !bool_tensor, name,
                     "subtraction, the `-` operator, with a bool tensor is not supported; use "
                     "the `~` operator to invert a mask");
  if (r == ScalarType::Bool) {
    GENESIS_CHECK_TYPE(op == BinaryOp::Add || op == BinaryOp::Mul || op == BinaryOp::Maximum ||
                           op == BinaryOp::Minimum || op == BinaryOp::Heaviside,
                       name, "not supported for bool tensors");
  }
  if (op == BinaryOp::Pow && !is_floating_point(r) && b.is_scalar() && !b.scalar.is_floating()) {
    GENESIS_CHECK(b.scalar.to_int() >= 0, name,
                  "integers to negative integer powers are not allowed");
    b.scalar.check_fits(r, name);  // int8_t ** 256 raises, as PyTorch (a wrapped 0 would not)
  }
  return {r, r};
}

// Note [Numbers beside 16-bit floats]
// A number operand of an op that computes in float16 or bfloat16 is first rounded to that
// dtype, as PyTorch converts it to the op's dtype (and NumPy does): T([0.1], float16) == 0.1 is
// True, bfloat16 x % 0.3 divides by 0.30078125, and 1e10 / x divides inf. The exceptions are
// PyTorch's too: its + - * / kernels, and ** with a number exponent, compute with a number
// second operand in float32, and so does genesis. (max/min give the same either way.) The
// loops compute 16-bit floats in float.
ScalarArg number_for(BinaryOp op, ScalarType compute, ScalarArg s, bool second) {
  bool narrow = is_16_bit_float(compute);
  bool kept = second && (op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul ||
                         op == BinaryOp::Div || op == BinaryOp::Pow);
  if (!s.is_scalar || !narrow || kept) return s;
  s.d = round_to_dtype(s.is_float ? s.d : static_cast<double>(s.i), compute);
  s.is_float = true;
  return s;
}

// Note [0-d tensors beside 16-bit floats]
// A 0-d tensor operand of another dtype is cast to the op's dtype like any tensor operand: for
// a float16 or bfloat16 op, rounded first. PyTorch's CPU * and / read a 0-d second operand at
// its own precision instead (their kernels take a CPU scalar's original value, as they do a
// number's: Note [Numbers beside 16-bit floats]), and so does genesis: bfloat16 x * T(1.005)
// multiplies by 1.005, not by 1.0078125. Checked against torch 2.13 for the binary ops in both
// positions (tests/ops/test_elementwise.py); every other op and position rounds in both. A CUDA
// op reads a CPU 0-d tensor as a number already (settle_devices).
bool reads_as_number(BinaryOp op, const Operand& o, ScalarType compute, Device device) {
  if ((op != BinaryOp::Mul && op != BinaryOp::Div) || o.is_scalar()) return false;
  const Tensor& t = o.tensor();
  return t.ndim() == 0 && device.is_cpu() && t.device().is_cpu() && t.dtype() != compute &&
         is_16_bit_float(compute);
}

// `fresh`: out is a result this call allocated, which a compiled region may leave to a fused
// group (Note [Fusing by deferring elementwise ops] in fusion/group.h).
void run_binary(BinaryOp op, ScalarType compute, const Tensor& out, const Prepared& a,
                const Prepared& b, bool fresh = false) {
  ScalarArg sa = number_for(op, compute, a.scalar, false);
  ScalarArg sb = number_for(op, compute, b.scalar, true);
  if (fresh && fusion::region_active() &&
      fusion::defer_binary(op, compute, out, a.tensor(), sa, b.tensor(), sb))
    return;
  if (out.is_cuda())
    cuda::binary(op, compute, out, a.tensor(), sa, b.tensor(), sb);
  else
    cpu::binary(op, compute, out, a.tensor(), sa, b.tensor(), sb);
}

// A written-to tensor whose elements alias each other (an expand) would be updated once per
// alias; PyTorch refuses it, so does genesis.
void check_no_self_alias(const Tensor& self, const char* name) {
  for (int64_t d = 0; d < self.ndim(); ++d)
    GENESIS_CHECK(self.strides()[d] != 0 || self.sizes()[d] <= 1, name,
                  "unsupported operation: more than one element of the written-to tensor "
                  "refers to a single memory location; clone() the tensor first");
}

void check_inplace(ScalarType result, const Tensor& self, const Shape& shape, const char* name) {
  check_no_self_alias(self, name);
  GENESIS_CHECK(can_cast(result, self.dtype()), name, "result type ", type_word(result),
                " can't be cast to the desired output type ", type_word(self.dtype()));
  GENESIS_CHECK(shape == self.sizes(), name, "output with shape ", shape_str(self.sizes()),
                " doesn't match the broadcast shape ", shape_str(shape));
}

}  // namespace

ScalarType result_type(const Operand* const* operands, int n) {
  std::optional<ScalarType> dims, zero_dim, numbers;
  for (int k = 0; k < n; ++k) {
    const Operand& o = *operands[k];
    if (o.is_scalar())
      numbers = promote_opt(numbers, o.scalar.default_dtype());
    else if (o.tensor().ndim() == 0)
      zero_dim = promote_opt(zero_dim, o.tensor().dtype());
    else
      dims = promote_opt(dims, o.tensor().dtype());
  }
  auto r = combine(dims, combine(zero_dim, numbers));
  return r ? *r : default_float();
}

ScalarType result_type(const Operand* operands, int n) {
  std::vector<const Operand*> ptrs(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) ptrs[k] = &operands[k];
  return result_type(ptrs.data(), n);
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

namespace {

// An uninitialized result of `sizes` laid out as the first tensor operand of these sizes that is
// contiguous or channels-last (Note [Layouts that results keep] in ops/layout.cpp); contiguous
// when there is none.
Tensor empty_result(const Shape& sizes, ScalarType dtype, Device device,
                    const Operand* const* operands, int n) {
  for (int k = 0; k < n; ++k) {
    if (operands[k]->is_scalar()) continue;
    const Tensor& t = operands[k]->tensor();
    if (t.sizes() != sizes) continue;
    if (t.is_contiguous()) break;
    if (prefers_channels_last(t)) return empty_channels_last(sizes, dtype, device);
    // neither (an expanded gradient, a strided view): the next operand decides
  }
  return Tensor::empty(sizes, dtype, device);
}

}  // namespace

Tensor broadcast_to(const Tensor& t, const Shape& shape) {
  return t.as_strided(shape, broadcast_strides(t.sizes(), t.strides(), shape), t.storage_offset());
}

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const char* name) {
  const Operand* operands[2] = {&a, &b};
  GENESIS_CHECK_TYPE(!a.is_scalar() || !b.is_scalar(), name, "expects at least one tensor");
  Dtypes dt = binary_dtypes(op, a, b, name);
  Device device = settle_devices(operands, 2, name);
  Shape sizes = broadcast_all(operands, 2, name);
  Tensor out = empty_result(sizes, dt.out, device, operands, 2);
  const Shape& shape = out.sizes();
  run_binary(op, dt.compute, out, prepare(a, dt.compute, shape, device),
             prepare(b, dt.compute, shape, device, reads_as_number(op, b, dt.compute, device)),
             true);
  return out;
}

void binary_(BinaryOp op, const Tensor& self, const Operand& other, const char* name) {
  check_writable(self, name);  // Note [Read-only storages]
  Operand self_operand(self);
  const Operand* operands[2] = {&self_operand, &other};
  Dtypes dt = binary_dtypes(op, self_operand, other, name);
  Device device = settle_devices(operands, 2, name);
  GENESIS_CHECK(device == self.device(), name, "expected all tensors to be on the same device, ",
                "but found ", self.device().str(), " and ", device.str());
  Shape shape = broadcast_all(operands, 2, name);
  check_inplace(dt.out, self, shape, name);
  Prepared a = prepare(self_operand, dt.compute, shape, device);
  Prepared b =
      prepare(other, dt.compute, shape, device, reads_as_number(op, other, dt.compute, device));
  // Reading memory that the loop is writing elsewhere in the same pass would see new values
  // (x.add_(x.flip())): read from a copy instead, as NumPy does. The same view is safe.
  if (b.tensor().defined() && b.tensor().storage().is_same(self.storage()) &&
      !b.tensor().is_same_view(self)) {
    b.borrowed = nullptr;
    b.owned = broadcast_to(
        clone(other.tensor().dtype() == dt.compute ? other.tensor()
                                                   : to(other.tensor(), dt.compute, device, false)),
        shape);
  }
  if (dt.out == self.dtype() && dt.compute == self.dtype()) {
    run_binary(op, dt.compute, self, a, b);
    return;
  }
  Tensor tmp = Tensor::empty(shape, dt.out, device);
  run_binary(op, dt.compute, tmp, a, b);
  copy_(self, tmp);
}

namespace {

ScalarType unary_dtype(UnaryOp op, ScalarType in, const char* name) {
  if (refuses_integers(op))
    GENESIS_CHECK_TYPE(is_floating_point(in), name, "not supported for ", type_word(in),
                       " tensors (only floating point)");
  if (is_floating_only(op)) return is_floating_point(in) ? in : default_float();
  if (op == UnaryOp::Square && in == ScalarType::Bool) return ScalarType::Int64;  // as pow(x, 2)
  if (op == UnaryOp::BitNot)
    GENESIS_CHECK_TYPE(!is_floating_point(in), name, "not supported for ", type_word(in),
                       " tensors (only integer and bool)");
  if (op == UnaryOp::Neg)
    GENESIS_CHECK_TYPE(in != ScalarType::Bool, name,
                       "negation, the `-` operator, on a bool tensor is not supported; use "
                       "the `~` operator to invert a mask");
  if (op == UnaryOp::Abs || op == UnaryOp::Relu || is_rounding(op))
    GENESIS_CHECK_TYPE(in != ScalarType::Bool, name, "not supported for bool tensors");
  return in;
}

void run_unary(UnaryOp op, const Tensor& out, const Tensor& a) {
  if (out.is_cuda())
    cuda::unary(op, out, a);
  else
    cpu::unary(op, out, a);
}

}  // namespace

Tensor unary(UnaryOp op, const Tensor& a, const char* name) {
  ScalarType dtype = unary_dtype(op, a.dtype(), name);
  Tensor converted = a.dtype() == dtype ? Tensor() : to(a, dtype, a.device(), false);
  Tensor out = empty_in_layout_of(a.sizes(), dtype, a.device(), a);
  const Tensor& in = converted.defined() ? converted : a;
  if (fusion::region_active() && fusion::defer_unary(op, out, in)) return out;
  run_unary(op, out, in);
  return out;
}

void unary_(UnaryOp op, const Tensor& self, const char* name) {
  check_writable(self, name);  // Note [Read-only storages]
  ScalarType dtype = unary_dtype(op, self.dtype(), name);
  check_inplace(dtype, self, self.sizes(), name);
  run_unary(op, self, self);
}

Tensor where(const Tensor& cond, const Operand& a, const Operand& b) {
  const char* name = "where";
  GENESIS_CHECK_TYPE(cond.dtype() == ScalarType::Bool, name,
                     "expected condition to be a bool tensor, but got a tensor with dtype ",
                     type_word(cond.dtype()));
  const Operand* values[2] = {&a, &b};
  ScalarType dtype = result_type(values, 2);
  Operand cond_operand(cond);
  const Operand* operands[3] = {&cond_operand, &a, &b};
  Device device = settle_devices(operands, 3, name);
  GENESIS_CHECK(cond.device() == device, name, "expected condition on ", device.str(),
                ", but it is on ", cond.device().str());
  Shape shape = broadcast_all(operands, 3, name);
  // A number beside an integer tensor must fit its dtype (PyTorch raises; a wrapped value
  // would be written silently).
  for (const Operand* o : values)
    if (o->is_scalar() && !is_floating_point(dtype)) o->scalar.check_fits(dtype, name);
  Tensor out = empty_result(shape, dtype, device, operands, 3);
  Prepared pc = prepare(cond_operand, ScalarType::Bool, shape, device);
  Prepared pa = prepare(a, dtype, shape, device), pb = prepare(b, dtype, shape, device);
  auto bits = [&](const Operand& o, const Prepared& p) -> uint64_t {
    if (p.tensor().defined()) return 0;
    return o.is_scalar() ? o.scalar.bit_pattern(dtype) : scalar_of(o.tensor()).bit_pattern(dtype);
  };
  uint64_t a_bits = bits(a, pa), b_bits = bits(b, pb);
  if (fusion::region_active() &&
      fusion::defer_where(out, pc.tensor(), pa.tensor(), a_bits, pb.tensor(), b_bits))
    return out;
  if (device.is_cuda())
    cuda::where(out, pc.tensor(), pa.tensor(), a_bits, pb.tensor(), b_bits);
  else
    cpu::where(out, pc.tensor(), pa.tensor(), a_bits, pb.tensor(), b_bits);
  return out;
}

namespace {

// Note [Clamp in one dtype]
// clamp(x, min, max) is max(x, min) then min(., max), computed in the dtype that x and both bounds
// promote to together, as PyTorch does: clamp(int32_t, tensor(3.), f16_t) is float16 (a 0-d
// bound does not widen within its category), and clamp(f16_t, int16_t, bf16_t) compares in
// float32, not with bounds rounded to float16. A number bound must fit that dtype, or PyTorch
// raises and so does genesis: int8 clamp(x, -1000, 1000) and float16 clamp(x, max=2**31) are
// errors, clamp(int8_t, 2**40, 0.5) is not (float32), clamp(uint8_t, max=1e300) is.
struct ClampPlan {
  ScalarType dtype;
  std::optional<Operand> min, max;  // tensor bounds in `dtype`
};

std::optional<Operand> clamp_bound(const std::optional<Operand>& bound, ScalarType dtype,
                                   const char* name) {
  if (!bound) return bound;
  if (bound->is_scalar()) {
    const Scalar& s = bound->scalar;
    s.check_fits(dtype, name);
    if (s.kind() == Scalar::Kind::Int && is_floating_point(dtype))
      GENESIS_CHECK(std::fabs(s.to_double()) <= largest_finite(dtype), name, "value ", s.to_int(),
                    " cannot be converted to ", scalar_type_name(dtype), " without overflow");
    return bound;
  }
  const Tensor& t = bound->tensor();
  return t.dtype() == dtype ? bound : std::optional<Operand>(to(t, dtype, t.device(), false));
}

ClampPlan plan_clamp(const Tensor& t, const std::optional<Operand>& min,
                     const std::optional<Operand>& max, const char* name) {
  GENESIS_CHECK(min || max, name, "at least one of 'min' or 'max' must not be None");
  Operand self(t);
  const Operand* operands[3];
  int n = 0;
  operands[n++] = &self;
  if (min) operands[n++] = &*min;
  if (max) operands[n++] = &*max;
  ScalarType dtype = result_type(operands, n);
  return {dtype, clamp_bound(min, dtype, name), clamp_bound(max, dtype, name)};
}

}  // namespace

Tensor clamp(const Tensor& t, const std::optional<Operand>& min,
             const std::optional<Operand>& max) {
  ClampPlan plan = plan_clamp(t, min, max, "clamp");
  Tensor out = t.dtype() == plan.dtype ? t : to(t, plan.dtype, t.device(), false);
  if (plan.min) out = binary(BinaryOp::Maximum, out, *plan.min, "clamp");
  if (plan.max) out = binary(BinaryOp::Minimum, out, *plan.max, "clamp");
  return out;
}

void clamp_(const Tensor& t, const std::optional<Operand>& min, const std::optional<Operand>& max,
            const char* name) {
  check_writable(t, name);  // Note [Read-only storages]
  ClampPlan plan = plan_clamp(t, min, max, name);
  if (plan.dtype != t.dtype()) {
    GENESIS_CHECK(can_cast(plan.dtype, t.dtype()), name, "result type ", type_word(plan.dtype),
                  " can't be cast to the desired output type ", type_word(t.dtype()));
    Tensor out = clamp(t, min, max);
    GENESIS_CHECK(out.sizes() == t.sizes(), name, "output with shape ", shape_str(t.sizes()),
                  " doesn't match the broadcast shape ", shape_str(out.sizes()));
    copy_(t, out);
    return;
  }
  if (plan.min) binary_(BinaryOp::Maximum, t, *plan.min, name);
  if (plan.max) binary_(BinaryOp::Minimum, t, *plan.max, name);
}

}  // namespace genesis::ops

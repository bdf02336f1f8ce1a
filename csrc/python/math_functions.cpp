// The elementwise ops of issue 15 (rounding, the special functions, inverse trig, atan2 and
// friends, logical and shift ops, the float-class predicates): genesis.X with out=, Tensor.X
// and the in-place Tensor.X_. The operators and the older ops are in math.cpp.
#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/elementwise.h"
#include "ops/elementwise_composed.h"
#include "python/bindings.h"
#include "python/operand.h"

namespace genesis::python {

namespace {

using ops::BinaryOp;
using ops::UnaryOp;

struct MoreUnarySpec {
  const char* name;
  const char* inplace;
  UnaryOp op;
};
constexpr MoreUnarySpec kMoreUnary[] = {
    {"floor", "floor_", UnaryOp::Floor},
    {"ceil", "ceil_", UnaryOp::Ceil},
    {"trunc", "trunc_", UnaryOp::Trunc},
    {"fix", "fix_", UnaryOp::Trunc},
    {"frac", "frac_", UnaryOp::Frac},
    {"sign", "sign_", UnaryOp::Sign},
    {"sgn", "sgn_", UnaryOp::Sign},
    {"square", "square_", UnaryOp::Square},
    {"reciprocal", "reciprocal_", UnaryOp::Reciprocal},
    {"log1p", "log1p_", UnaryOp::Log1p},
    {"expm1", "expm1_", UnaryOp::Expm1},
    {"log2", "log2_", UnaryOp::Log2},
    {"log10", "log10_", UnaryOp::Log10},
    {"exp2", "exp2_", UnaryOp::Exp2},
    {"erf", "erf_", UnaryOp::Erf},
    {"erfc", "erfc_", UnaryOp::Erfc},
    {"erfinv", "erfinv_", UnaryOp::Erfinv},
    {"lgamma", "lgamma_", UnaryOp::Lgamma},
    {"digamma", "digamma_", UnaryOp::Digamma},
    {"sinh", "sinh_", UnaryOp::Sinh},
    {"cosh", "cosh_", UnaryOp::Cosh},
    {"asin", "asin_", UnaryOp::Asin},
    {"arcsin", "arcsin_", UnaryOp::Asin},
    {"acos", "acos_", UnaryOp::Acos},
    {"arccos", "arccos_", UnaryOp::Acos},
    {"atan", "atan_", UnaryOp::Atan},
    {"arctan", "arctan_", UnaryOp::Atan},
    {"asinh", "asinh_", UnaryOp::Asinh},
    {"arcsinh", "arcsinh_", UnaryOp::Asinh},
    {"acosh", "acosh_", UnaryOp::Acosh},
    {"arccosh", "arccosh_", UnaryOp::Acosh},
    {"atanh", "atanh_", UnaryOp::Atanh},
    {"arctanh", "arctanh_", UnaryOp::Atanh},
};

struct MoreBinarySpec {
  const char* name;
  const char* inplace;
  const char* other;  // the second argument's name
  BinaryOp op;
};
constexpr MoreBinarySpec kMoreBinary[] = {
    {"atan2", "atan2_", "other", BinaryOp::Atan2},
    {"arctan2", "arctan2_", "other", BinaryOp::Atan2},
    {"hypot", "hypot_", "other", BinaryOp::Hypot},
    {"fmod", "fmod_", "other", BinaryOp::Fmod},
    {"copysign", "copysign_", "other", BinaryOp::Copysign},
    {"heaviside", "heaviside_", "values", BinaryOp::Heaviside},
    {"logical_and", "logical_and_", "other", BinaryOp::LogicalAnd},
    {"logical_or", "logical_or_", "other", BinaryOp::LogicalOr},
    {"logical_xor", "logical_xor_", "other", BinaryOp::LogicalXor},
    {"bitwise_left_shift", "bitwise_left_shift_", "other", BinaryOp::ShiftLeft},
    {"bitwise_right_shift", "bitwise_right_shift_", "other", BinaryOp::ShiftRight},
};

struct PredicateSpec {
  const char* name;
  Tensor (*fn)(const Tensor&);
  bool has_out;
};
constexpr PredicateSpec kPredicates[] = {
    {"isnan", ops::isnan, false},       {"isinf", ops::isinf, false},
    {"isposinf", ops::isposinf, true},  {"isneginf", ops::isneginf, true},
    {"isfinite", ops::isfinite, false},
};

}  // namespace

void init_math_functions(py::module_& m, py::class_<Tensor>& cls) {
  for (const MoreUnarySpec& spec : kMoreUnary) {
    UnaryOp op = spec.op;
    const char *name = spec.name, *stored = spec.inplace;
    cls.def(name, [op, name](const Tensor& self) { return ag::unary(op, self, name); });
    m.def(
        name,
        [op, name](const Tensor& input, py::handle out) {
          return finish_out(ag::unary(op, input, name), out, name);
        },
        py::arg("input"), py::kw_only(), py::arg("out") = py::none());
    cls.def(stored, [op, stored](py::object self) {
      ag::unary_(op, self.cast<const Tensor&>(), stored);
      return self;
    });
  }

  cls.def(
      "round",
      [](const Tensor& self, int64_t decimals) { return ag::round(self, decimals, "round"); },
      py::kw_only(), py::arg("decimals") = 0);
  m.def(
      "round",
      [](const Tensor& input, int64_t decimals, py::handle out) {
        return finish_out(ag::round(input, decimals, "round"), out, "round");
      },
      py::arg("input"), py::kw_only(), py::arg("decimals") = 0, py::arg("out") = py::none());
  cls.def(
      "round_",
      [](py::object self, int64_t decimals) {
        ops::round_(self.cast<const Tensor&>(), decimals, "round_");
        return self;
      },
      py::kw_only(), py::arg("decimals") = 0);

  for (const MoreBinarySpec& spec : kMoreBinary) {
    BinaryOp op = spec.op;
    const char *name = spec.name, *stored = spec.inplace;
    cls.def(
        name,
        [op, name](const Tensor& self, py::handle other) {
          return ag::binary(op, self, operand(other, name), name);
        },
        py::arg(spec.other));
    m.def(
        name,
        [op, name](py::handle input, py::handle other, py::handle out) {
          return finish_out(ag::binary(op, operand(input, name), operand(other, name), name), out,
                            name);
        },
        py::arg("input"), py::arg(spec.other), py::kw_only(), py::arg("out") = py::none());
    cls.def(
        stored,
        [op, stored](py::object self, py::handle other) {
          ag::binary_(op, self.cast<const Tensor&>(), operand(other, stored), stored);
          return self;
        },
        py::arg(spec.other));
  }

  // polygamma(n, x): the binary op (x, n) with n a non-negative int (Note [Polygamma]).
  auto order = [](int64_t n, const char* op) {
    GENESIS_CHECK_VALUE(n >= 0, op, "does not support negative n, got ", n);
    return ops::Operand(Scalar(n));
  };
  m.def(
      "polygamma",
      [order](int64_t n, const Tensor& input, py::handle out) {
        return finish_out(
            ag::binary(BinaryOp::Polygamma, input, order(n, "polygamma"), "polygamma"), out,
            "polygamma");
      },
      py::arg("n"), py::arg("input"), py::kw_only(), py::arg("out") = py::none());
  cls.def(
      "polygamma",
      [order](const Tensor& self, int64_t n) {
        return ag::binary(BinaryOp::Polygamma, self, order(n, "polygamma"), "polygamma");
      },
      py::arg("n"));
  cls.def(
      "polygamma_",
      [order](py::object self, int64_t n) {
        ag::binary_(BinaryOp::Polygamma, self.cast<const Tensor&>(), order(n, "polygamma_"),
                    "polygamma_");
        return self;
      },
      py::arg("n"));

  for (const PredicateSpec& spec : kPredicates) {
    auto fn = spec.fn;
    const char* name = spec.name;
    cls.def(name, fn);
    if (!spec.has_out) {  // as PyTorch: isnan, isinf and isfinite take no out=
      m.def(name, fn, py::arg("input"));
      continue;
    }
    m.def(
        name,
        [fn, name](const Tensor& input, py::handle out) {
          return finish_out(fn(input), out, name);
        },
        py::arg("input"), py::kw_only(), py::arg("out") = py::none());
  }
}

}  // namespace genesis::python

// The elementwise ops that are not rows of the op table's generic binding: round (decimals=),
// polygamma (n first) and the float-class predicates. The unary and binary rows, the operators
// and div are bound in math.cpp.
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

  // For ops composed in Python (genesis.special): the same out= writing, checks and resize
  // warning as the compiled ops (Note [out= arguments]).
  m.def(
      "_finish_out",
      [](const Tensor& result, py::handle out, const std::string& name) {
        return finish_out(result, out, name.c_str());
      },
      py::arg("result"), py::arg("out"), py::arg("name"));
}

}  // namespace genesis::python

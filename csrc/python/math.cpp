// Elementwise math: operators, methods (with in-place forms) and genesis.* functions.
#include "autograd/ops.h"
#include "core/errors.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "python/bindings.h"
#include "python/op_table.h"
#include "python/operand.h"

namespace genesis::python {

namespace {

using ops::BinaryOp;
using ops::Operand;
using ops::UnaryOp;

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

// other * alpha for add/sub's alpha argument. alpha * other is in the result's dtype (not
// other's, which would wrap int8 or round bfloat16), float32 for the 16-bit floats (PyTorch's
// kernels compute a + alpha * b in float32: a product past float16's range still adds), and
// alpha takes no part in the result's dtype.
// *in_float32 tells whether the product is a float32 tensor beside a 16-bit result.
Operand scaled(const Operand& self, const Operand& other, py::handle alpha, const char* op,
               bool* in_float32 = nullptr) {
  if (alpha.is_none()) return other;
  Scalar a = to_scalar(alpha, op);
  if (a.to_double() == 1.0 && !a.is_floating()) return other;
  Operand both[2] = {self, other};
  ScalarType rt = ops::result_type(both, 2);
  bool integral = !is_floating_point(rt);
  GENESIS_CHECK_TYPE(!(integral && a.is_floating()), op,
                     "for integral input tensors, argument alpha must not be a floating point "
                     "number");
  if (integral) a.check_fits(rt, op);  // as PyTorch: int8 alpha=300 raises, not wraps
  if (a.to_double() == 1.0) return other;
  if (!other.is_scalar()) {
    ScalarType compute = is_16_bit_float(rt) ? ScalarType::Float32 : rt;
    const Tensor& o = other.tensor();
    Tensor common = o.dtype() == rt ? o : ag::to(o, rt, o.device(), false);
    Tensor product = ag::binary(
        BinaryOp::Mul,
        common.dtype() == compute ? common : ag::to(common, compute, o.device(), false), a, op);
    if (in_float32 != nullptr) *in_float32 = compute != rt;
    return product.dtype() == compute ? product : ag::to(product, compute, product.device(), false);
  }
  if (other.scalar.is_floating() || a.is_floating())
    return Scalar(other.scalar.to_double() * a.to_double());
  return Scalar(other.scalar.to_int() * a.to_int());
}

// self + alpha * other (or -): a float32 product beside 16-bit operands is added in float32 and
// the sum rounded once to the result's dtype.
Tensor add_scaled(BinaryOp op, const Operand& self, const Operand& other, py::handle alpha,
                  const char* name) {
  bool in_float32 = false;
  Operand product = scaled(self, other, alpha, name, &in_float32);
  if (!in_float32) return ag::binary(op, self, product, name);
  Operand both[2] = {self, other};
  ScalarType rt = ops::result_type(both, 2);
  // self in float32 too: a 0-d product beside it would otherwise be rounded to its dtype.
  Operand wide =
      self.is_scalar()
          ? self
          : Operand(ag::to(self.tensor(), ScalarType::Float32, self.tensor().device(), false));
  Tensor r = ag::binary(op, wide, product, name);
  return ag::to(r, rt, r.device(), false);
}

struct DunderSpec {
  const char* name;
  const char* reflected;  // or nullptr
  const char* inplace;    // or nullptr
  BinaryOp op;
};
constexpr DunderSpec kDunders[] = {
    {"__add__", "__radd__", "__iadd__", BinaryOp::Add},
    {"__sub__", "__rsub__", "__isub__", BinaryOp::Sub},
    {"__mul__", "__rmul__", "__imul__", BinaryOp::Mul},
    {"__truediv__", "__rtruediv__", "__itruediv__", BinaryOp::Div},
    {"__floordiv__", "__rfloordiv__", "__ifloordiv__", BinaryOp::FloorDiv},
    {"__mod__", "__rmod__", "__imod__", BinaryOp::Rem},
    {"__pow__", "__rpow__", "__ipow__", BinaryOp::Pow},
    {"__and__", "__rand__", "__iand__", BinaryOp::BitAnd},
    {"__or__", "__ror__", "__ior__", BinaryOp::BitOr},
    {"__xor__", "__rxor__", "__ixor__", BinaryOp::BitXor},
    {"__lshift__", "__rlshift__", "__ilshift__", BinaryOp::ShiftLeft},
    {"__rshift__", "__rrshift__", "__irshift__", BinaryOp::ShiftRight},
    {"__eq__", nullptr, nullptr, BinaryOp::Eq},
    {"__ne__", nullptr, nullptr, BinaryOp::Ne},
    {"__lt__", nullptr, nullptr, BinaryOp::Lt},
    {"__le__", nullptr, nullptr, BinaryOp::Le},
    {"__gt__", nullptr, nullptr, BinaryOp::Gt},
    {"__ge__", nullptr, nullptr, BinaryOp::Ge},
};

// div's rounding_mode: None, "trunc" or "floor".
BinaryOp div_op(py::handle mode) {
  if (mode.is_none()) return BinaryOp::Div;
  std::string m = py::str(mode).cast<std::string>();
  if (m == "trunc") return BinaryOp::TruncDiv;
  if (m == "floor") return BinaryOp::FloorDiv;
  GENESIS_FAIL(ErrorKind::Value, "div", "rounding_mode must be None, 'trunc' or 'floor', but got '",
               m, "'");
}

// Note [The op table]
// genesis/_op_table.py describes every op the core binds: its forms (genesis.<name>,
// Tensor.<name>, the in-place Tensor.<name>_, out=), its family, whether it has a derivative, and
// the per-op habits of its binding. tools/generate_ops.py turns it into csrc/python/op_table.h
// (the elementwise rows bound below, and the lists call_habits.cpp consults), op_families.h (the
// op families module.cpp binds, in order), the op imports and __all__ of genesis/__init__.py,
// and docs/ops.md; tests/project/test_op_table.py checks that
// the rows and the built core agree and that each op has forward and gradient tests. The
// table's codes section lists the elementwise op codes, each with its backward name and (unary)
// derivative: from it come vocab/elementwise_codes.h (the enums and the dispatch switches) and
// autograd/elementwise_derivatives.inc. A new elementwise op is its functor, a code row, an op
// row and a docstring; the binding below is the same for every row.

// genesis.<name>(input, other[, *, alpha][, *, out]), Tensor.<name>(other[, *, alpha]) and the
// in-place Tensor.<name>_: alpha for add and sub only, as PyTorch.
void bind_binary(py::module_& m, py::class_<Tensor>& cls, const op_table::BinaryRow& row) {
  BinaryOp op = row.op;
  const char* name = row.name;
  auto compute = [op, name](const Operand& a, const Operand& b, py::handle alpha) {
    return alpha.is_none() ? ag::binary(op, a, b, name) : add_scaled(op, a, b, alpha, name);
  };
  if (op == BinaryOp::Add || op == BinaryOp::Sub) {
    if (row.method)
      cls.def(
          name,
          [compute, name](const Tensor& self, py::handle other, py::handle alpha) {
            return compute(self, operand(other, name), alpha);
          },
          py::arg(row.other), py::kw_only(), py::arg("alpha") = py::none());
    m.def(
        name,
        [compute, name](py::handle input, py::handle other, py::handle alpha, py::handle out) {
          return finish_out(compute(operand(input, name), operand(other, name), alpha), out, name);
        },
        py::arg("input"), py::arg(row.other), py::kw_only(), py::arg("alpha") = py::none(),
        py::arg("out") = py::none());
    if (row.inplace) {
      const char* stored = row.inplace;
      cls.def(
          stored,
          [op, stored](py::object self, py::handle other, py::handle alpha) {
            const Tensor& t = self.cast<const Tensor&>();
            ag::binary_(op, t, scaled(t, operand(other, stored), alpha, stored), stored);
            return self;
          },
          py::arg(row.other), py::kw_only(), py::arg("alpha") = py::none());
    }
    return;
  }
  if (row.method)
    cls.def(
        name,
        [op, name](const Tensor& self, py::handle other) {
          return ag::binary(op, self, operand(other, name), name);
        },
        py::arg(row.other));
  auto function = [op, name](py::handle input, py::handle other) {
    return ag::binary(op, operand(input, name), operand(other, name), name);
  };
  if (row.out)
    m.def(
        name,
        [function, name](py::handle input, py::handle other, py::handle out) {
          return finish_out(function(input, other), out, name);
        },
        py::arg("input"), py::arg(row.other), py::kw_only(), py::arg("out") = py::none());
  else
    m.def(name, function, py::arg("input"), py::arg(row.other));
  if (row.inplace) {
    const char* stored = row.inplace;
    cls.def(
        stored,
        [op, stored](py::object self, py::handle other) {
          ag::binary_(op, self.cast<const Tensor&>(), operand(other, stored), stored);
          return self;
        },
        py::arg(row.other));
  }
}

// genesis.<name>(input[, *, out]), Tensor.<name>() and the in-place Tensor.<name>_().
void bind_unary(py::module_& m, py::class_<Tensor>& cls, const op_table::UnaryRow& row) {
  UnaryOp op = row.op;
  const char* name = row.name;
  if (row.method)
    cls.def(name, [op, name](const Tensor& self) { return ag::unary(op, self, name); });
  if (row.out)
    m.def(
        name,
        [op, name](const Tensor& input, py::handle out) {
          return finish_out(ag::unary(op, input, name), out, name);
        },
        py::arg("input"), py::kw_only(), py::arg("out") = py::none());
  else
    m.def(
        name, [op, name](const Tensor& input) { return ag::unary(op, input, name); },
        py::arg("input"));
  if (row.inplace) {
    const char* stored = row.inplace;
    cls.def(stored, [op, stored](py::object self) {
      ag::unary_(op, self.cast<const Tensor&>(), stored);
      return self;
    });
  }
}

}  // namespace

void init_math(py::module_& m, py::class_<Tensor>& cls) {
  // The elementwise rows of the op table (Note [The op table]).
  for (const op_table::BinaryRow& row : op_table::kBinary) bind_binary(m, cls, row);
  for (const op_table::UnaryRow& row : op_table::kUnary) bind_unary(m, cls, row);

  // div / divide with rounding_mode.
  for (auto names : {std::pair{"div", "div_"}, std::pair{"divide", "divide_"}}) {
    const char *name = names.first, *stored = names.second;
    cls.def(
        name,
        [name](const Tensor& self, py::handle other, py::handle mode) {
          return ag::binary(div_op(mode), self, operand(other, name), name);
        },
        py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
    m.def(
        name,
        [name](py::handle input, py::handle other, py::handle mode) {
          return ag::binary(div_op(mode), operand(input, name), operand(other, name), name);
        },
        py::arg("input"), py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
    cls.def(
        stored,
        [stored](py::object self, py::handle other, py::handle mode) {
          ag::binary_(div_op(mode), self.cast<const Tensor&>(), operand(other, stored), stored);
          return self;
        },
        py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  }

  for (const DunderSpec& spec : kDunders) {
    BinaryOp op = spec.op;
    const char* name = spec.name;
    cls.def(name, [op, name](const Tensor& self, py::handle other) -> py::object {
      auto o = try_operand(other, name);
      if (!o) return not_implemented();
      return py::cast(ag::binary(op, self, *o, name));
    });
    if (spec.reflected) {
      const char* rname = spec.reflected;
      cls.def(rname, [op, rname](const Tensor& self, py::handle other) -> py::object {
        auto o = try_operand(other, rname);
        if (!o) return not_implemented();
        return py::cast(ag::binary(op, *o, self, rname));
      });
    }
    if (spec.inplace) {
      const char* iname = spec.inplace;
      cls.def(iname, [op, iname](py::object self, py::handle other) -> py::object {
        auto o = try_operand(other, iname);
        if (!o) return not_implemented();
        ag::binary_(op, self.cast<const Tensor&>(), *o, iname);
        return self;
      });
    }
  }
  // Defining __eq__ drops the default hash; tensors hash by identity, as in PyTorch. object's own
  // __hash__ (CPython then calls its C slot directly: ~40 ns, against ~240 through a bound
  // function; optimizers look up each parameter's state by it every step).
  cls.attr("__hash__") = py::module_::import("builtins").attr("object").attr("__hash__");
  // Tensor.__array_ufunc__ (NumPy ufuncs on CPU tensors) is in genesis/_tensor_protocols.py.

  cls.def("__neg__", [](const Tensor& self) { return ag::unary(UnaryOp::Neg, self, "neg"); })
      .def("__pos__", [](const Tensor& self) { return self; })
      .def("__abs__", [](const Tensor& self) { return ag::unary(UnaryOp::Abs, self, "abs"); })
      .def("__invert__",
           [](const Tensor& self) { return ag::unary(UnaryOp::BitNot, self, "bitwise_not"); })
      .def("logical_not",
           [](const Tensor& self) {
             return ag::binary(BinaryOp::Eq, self, Scalar(int64_t{0}), "logical_not");
           })
      .def("logical_not_", [](py::object self_object) {
        const Tensor& self = self_object.cast<const Tensor&>();
        check_writable(self, "logical_not_");
        ops::copy_(self, ag::binary(BinaryOp::Eq, self, Scalar(int64_t{0}), "logical_not_"));
        return self_object;  // the same Python object, as in-place methods return
      });
  m.def(
      "logical_not",
      [](const Tensor& self) {
        return ag::binary(BinaryOp::Eq, self, Scalar(int64_t{0}), "logical_not");
      },
      py::arg("input"));

  // clamp / clip with tensor or number bounds.
  for (auto names : {std::pair{"clamp", "clamp_"}, std::pair{"clip", "clip_"}}) {
    const char *name = names.first, *stored = names.second;
    auto clamp_impl = [name](const Tensor& self, py::handle min, py::handle max) {
      return ag::clamp(self, optional_operand(min, name), optional_operand(max, name));
    };
    cls.def(name, clamp_impl, py::arg("min") = py::none(), py::arg("max") = py::none());
    m.def(name, clamp_impl, py::arg("input"), py::arg("min") = py::none(),
          py::arg("max") = py::none());
    cls.def(
        stored,
        [stored](py::object self, py::handle min, py::handle max) {
          ops::clamp_(self.cast<const Tensor&>(), optional_operand(min, stored),
                      optional_operand(max, stored), stored);
          return self;
        },
        py::arg("min") = py::none(), py::arg("max") = py::none());
  }

  m.def(
      "where",
      [](const Tensor& cond, py::handle input, py::handle other) -> py::object {
        if (input.is_none() && other.is_none()) return where_one(cond);  // nonzero(as_tuple)
        GENESIS_CHECK_TYPE(!input.is_none() && !other.is_none(), "where",
                           "takes a condition alone or a condition, input and other");
        return py::cast(ag::where(cond, operand(input, "where"), operand(other, "where")));
      },
      py::arg("condition"), py::arg("input") = py::none(), py::arg("other") = py::none());
  cls.def(
      "where",
      [](const Tensor& self, const Tensor& cond, py::handle other) {
        return ag::where(cond, self, operand(other, "where"));
      },
      py::arg("condition"), py::arg("other"));
  m.def(
      "result_type",
      [](py::handle a, py::handle b) {
        Operand both[2] = {operand(a, "result_type"), operand(b, "result_type")};
        return dtype_object(ops::result_type(both, 2));
      },
      py::arg("tensor1"), py::arg("tensor2"));
}

}  // namespace genesis::python

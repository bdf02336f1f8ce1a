// genesis.Tensor's operators as CPython slots. Note [Operator slots]: `a + b` through pybind11's
// __add__ builds an argument tuple, runs the overload dispatcher and looks the C++ type up in a
// hash table several times; on a one-element CUDA tensor that is a large share of the op's host
// time next to the ~3 us kernel launch. The slots below read the Tensor straight out of the
// Python object and call the op. The pybind11 methods (__add__, __radd__ ...) stay for explicit
// calls and share the ops and the error messages.
#include "autograd/ops.h"
#include "core/errors.h"
#include "python/autocast.h"
#include "python/operand.h"
#include "python/tensor_object.h"

namespace genesis::python {

namespace {

using ops::BinaryOp;
using ops::UnaryOp;

// Runs body, turning C++ exceptions into the Python error pybind11 would have raised.
template <typename Body>
PyObject* guarded(const Body& body) {
  try {
    return body();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyObject* new_not_implemented_ref() {
  Py_INCREF(Py_NotImplemented);
  return Py_NotImplemented;
}

struct SlotNames {
  const char* forward;
  const char* reflected;
  const char* inplace;
};

// a op b, where either side may be the tensor (Python calls the right operand's slot with the
// same argument order when the left one answers NotImplemented).
// Under autocast, `t ** x`, `x ** t` and `x / t` are listed ops (fp32 on CUDA: Note
// [Autocast]): the slot hands them to their bound methods, which autocast sees.
template <BinaryOp Op, const SlotNames& Names>
PyObject* autocast_method(PyObject* a, PyObject* b) {
  if (tensor_of(a) != nullptr && Op == BinaryOp::Pow)
    return PyObject_CallMethod(a, Names.forward, "O", b);
  if (tensor_of(a) == nullptr && tensor_of(b) != nullptr)
    return PyObject_CallMethod(b, Names.reflected, "O", a);
  return nullptr;
}

template <BinaryOp Op, const SlotNames& Names>
PyObject* binary_slot(PyObject* a, PyObject* b) {
  if constexpr (Op == BinaryOp::Pow || Op == BinaryOp::Div) {
    if (autocast::active())
      if (PyObject* r = autocast_method<Op, Names>(a, b); r != nullptr || PyErr_Occurred())
        return r;
  }
  return guarded([&]() -> PyObject* {
    if (const Tensor* ta = tensor_of(a)) {
      auto other = try_operand(b, Names.forward);
      if (!other) return new_not_implemented_ref();
      return new_tensor_object(ag::binary(Op, *ta, *other, Names.forward));
    }
    const Tensor* tb = tensor_of(b);
    if (tb == nullptr) return new_not_implemented_ref();
    auto other = try_operand(a, Names.reflected);
    if (!other) return new_not_implemented_ref();
    return new_tensor_object(ag::binary(Op, *other, *tb, Names.reflected));
  });
}

template <BinaryOp Op, const SlotNames& Names>
PyObject* inplace_slot(PyObject* self, PyObject* b) {
  return guarded([&]() -> PyObject* {
    const Tensor* t = tensor_of(self);
    if (t == nullptr) return new_not_implemented_ref();
    auto other = try_operand(b, Names.inplace);
    if (!other) return new_not_implemented_ref();
    ag::binary_(Op, *t, *other, Names.inplace);
    Py_INCREF(self);
    return self;
  });
}

// pow(a, b, modulo) has no tensor meaning: only the two-argument form.
template <const SlotNames& Names>
PyObject* power_slot(PyObject* a, PyObject* b, PyObject* modulo) {
  if (modulo != Py_None) return new_not_implemented_ref();
  return binary_slot<BinaryOp::Pow, Names>(a, b);
}

template <const SlotNames& Names>
PyObject* inplace_power_slot(PyObject* self, PyObject* b, PyObject* modulo) {
  if (modulo != Py_None) return new_not_implemented_ref();
  return inplace_slot<BinaryOp::Pow, Names>(self, b);
}

PyObject* richcompare_slot(PyObject* self, PyObject* other, int op) {
  static constexpr BinaryOp kOps[] = {BinaryOp::Lt, BinaryOp::Le, BinaryOp::Eq,
                                      BinaryOp::Ne, BinaryOp::Gt, BinaryOp::Ge};
  static constexpr const char* kNames[] = {"__lt__", "__le__", "__eq__",
                                           "__ne__", "__gt__", "__ge__"};
  return guarded([&]() -> PyObject* {
    const Tensor* t = tensor_of(self);
    if (t == nullptr || op < Py_LT || op > Py_GE) return new_not_implemented_ref();
    auto o = try_operand(other, kNames[op]);
    if (!o) return new_not_implemented_ref();
    return new_tensor_object(ag::binary(kOps[op], *t, *o, kNames[op]));
  });
}

template <UnaryOp Op, const char* Name>
PyObject* unary_slot(PyObject* self) {
  return guarded([&]() -> PyObject* {
    const Tensor* t = tensor_of(self);
    if (t == nullptr) return new_not_implemented_ref();
    return new_tensor_object(ag::unary(Op, *t, Name));
  });
}

constexpr SlotNames kAdd{"__add__", "__radd__", "__iadd__"};
constexpr SlotNames kSub{"__sub__", "__rsub__", "__isub__"};
constexpr SlotNames kMul{"__mul__", "__rmul__", "__imul__"};
constexpr SlotNames kDiv{"__truediv__", "__rtruediv__", "__itruediv__"};
constexpr SlotNames kFloorDiv{"__floordiv__", "__rfloordiv__", "__ifloordiv__"};
constexpr SlotNames kMod{"__mod__", "__rmod__", "__imod__"};
constexpr SlotNames kPow{"__pow__", "__rpow__", "__ipow__"};
constexpr SlotNames kAnd{"__and__", "__rand__", "__iand__"};
constexpr SlotNames kOr{"__or__", "__ror__", "__ior__"};
constexpr SlotNames kXor{"__xor__", "__rxor__", "__ixor__"};
constexpr char kNeg[] = "neg";
constexpr char kAbs[] = "abs";
constexpr char kBitNot[] = "bitwise_not";

}  // namespace

void install_operator_slots(py::handle tensor_class) {
  auto* type = reinterpret_cast<PyTypeObject*>(tensor_class.ptr());
  PyNumberMethods* n = type->tp_as_number;  // the heap type's own table, written by pybind11
  n->nb_add = binary_slot<BinaryOp::Add, kAdd>;
  n->nb_subtract = binary_slot<BinaryOp::Sub, kSub>;
  n->nb_multiply = binary_slot<BinaryOp::Mul, kMul>;
  n->nb_true_divide = binary_slot<BinaryOp::Div, kDiv>;
  n->nb_floor_divide = binary_slot<BinaryOp::FloorDiv, kFloorDiv>;
  n->nb_remainder = binary_slot<BinaryOp::Rem, kMod>;
  n->nb_power = power_slot<kPow>;
  n->nb_and = binary_slot<BinaryOp::BitAnd, kAnd>;
  n->nb_or = binary_slot<BinaryOp::BitOr, kOr>;
  n->nb_xor = binary_slot<BinaryOp::BitXor, kXor>;
  n->nb_inplace_add = inplace_slot<BinaryOp::Add, kAdd>;
  n->nb_inplace_subtract = inplace_slot<BinaryOp::Sub, kSub>;
  n->nb_inplace_multiply = inplace_slot<BinaryOp::Mul, kMul>;
  n->nb_inplace_true_divide = inplace_slot<BinaryOp::Div, kDiv>;
  n->nb_inplace_floor_divide = inplace_slot<BinaryOp::FloorDiv, kFloorDiv>;
  n->nb_inplace_remainder = inplace_slot<BinaryOp::Rem, kMod>;
  n->nb_inplace_power = inplace_power_slot<kPow>;
  n->nb_inplace_and = inplace_slot<BinaryOp::BitAnd, kAnd>;
  n->nb_inplace_or = inplace_slot<BinaryOp::BitOr, kOr>;
  n->nb_inplace_xor = inplace_slot<BinaryOp::BitXor, kXor>;
  n->nb_negative = unary_slot<UnaryOp::Neg, kNeg>;
  n->nb_absolute = unary_slot<UnaryOp::Abs, kAbs>;
  n->nb_invert = unary_slot<UnaryOp::BitNot, kBitNot>;
  type->tp_richcompare = richcompare_slot;
}

}  // namespace genesis::python

#include "python/operand.h"

#include "core/errors.h"
#include "ops/elementwise_extra.h"
#include "python/tensor_object.h"

namespace genesis::python {

py::object finish_out(Tensor result, py::handle out, const char* name) {
  if (out.is_none()) return py::cast(std::move(result));
  ops::write_out(out.cast<const Tensor&>(), result, name);
  return py::reinterpret_borrow<py::object>(out);
}

std::optional<ops::Operand> try_operand(py::handle obj, const char* op) {
  PyObject* p = obj.ptr();
  if (const Tensor* t = tensor_of(p)) return ops::Operand(*t);
  if (PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p) || is_numpy_scalar(obj))
    return ops::Operand(to_scalar(obj, op));
  return std::nullopt;
}

ops::Operand operand(py::handle obj, const char* op) {
  auto o = try_operand(obj, op);
  GENESIS_CHECK_TYPE(o.has_value(), op, "expected a tensor or a number, got ",
                     py::str(py::type::of(obj).attr("__name__")).cast<std::string>());
  return *o;
}

std::optional<ops::Operand> optional_operand(py::handle obj, const char* op) {
  if (obj.is_none()) return std::nullopt;
  return operand(obj, op);
}

}  // namespace genesis::python

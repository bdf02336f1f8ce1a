#include "python/operand.h"

#include "core/errors.h"
#include "ops/elementwise_composed.h"
#include "python/tensor_object.h"

namespace genesis::python {

void write_out_warned(py::handle out, const Tensor& result, const char* name) {
  GENESIS_CHECK_TYPE(py::isinstance<Tensor>(out), name, "out must be a Tensor, got ",
                     type_name(out));
  Tensor& o = out.cast<Tensor&>();
  if (o.numel() != 0 && o.sizes() != result.sizes() && o.device() == result.device() &&
      ops::can_cast(result.dtype(), o.dtype()) && o.is_writable()) {
    // PyTorch's words (at::native::resize_output), so filters written for it match.
    std::string msg = "[" + std::string(name) +
                      "] An output with one or more elements was resized since it had shape " +
                      shape_str(o.sizes()) + ", which does not match the required output shape " +
                      shape_str(result.sizes()) +
                      ". This behavior is deprecated, and in a future PyTorch release outputs "
                      "will not be resized unless they have zero elements. You can explicitly "
                      "reuse an out tensor t by resizing it, inplace, to zero elements with "
                      "t.resize_(0).";
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) != 0) throw py::error_already_set();
  }
  ops::write_out(o, result, name);
}

py::object finish_out(Tensor result, py::handle out, const char* name) {
  if (out.is_none()) return py::cast(std::move(result));
  write_out_warned(out, result, name);
  return py::reinterpret_borrow<py::object>(out);
}

py::object finish_tuple_out(py::handle type, py::tuple parts, py::handle out, const char* name) {
  auto make = [&](py::tuple items) { return type.is_none() ? py::object(items) : type(*items); };
  if (out.is_none()) return make(parts);
  bool shaped = (py::isinstance<py::tuple>(out) || py::isinstance<py::list>(out)) &&
                py::len(out) == parts.size();
  py::sequence seq = shaped ? py::reinterpret_borrow<py::sequence>(out) : py::sequence();
  for (size_t i = 0; shaped && i < parts.size(); ++i) shaped = py::isinstance<Tensor>(seq[i]);
  std::string fields;
  if (py::hasattr(type, "_fields"))
    fields = " (" + py::str(", ").attr("join")(type.attr("_fields")).cast<std::string>() + ")";
  GENESIS_CHECK_TYPE(shaped, name, "out must be a tuple of ", parts.size(), " tensors", fields,
                     ", got a ", type_name(out));
  py::tuple items(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    write_out_warned(seq[i], parts[i].cast<const Tensor&>(), name);
    items[i] = seq[i];
  }
  return make(items);
}

std::optional<ops::Operand> try_operand(py::handle obj, const char* op) {
  PyObject* p = obj.ptr();
  if (const Tensor* t = tensor_of(p)) return ops::Operand(*t);
  if (PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p) || is_numpy_scalar(obj))
    return ops::Operand(to_scalar(obj, op));
  // A NumPy array is the CPU tensor genesis.tensor() makes of it, as PyTorch takes one
  // (t + array is a tensor; array + t too, through Tensor.__array_ufunc__).
  if (py::isinstance<py::array>(obj))
    return ops::Operand(tensor_from_data(obj, std::nullopt, kCPU));
  return std::nullopt;
}

ops::Operand operand(py::handle obj, const char* op) {
  auto o = try_operand(obj, op);
  GENESIS_CHECK_TYPE(o.has_value(), op, "expected a tensor or a number, got ", type_name(obj));
  return *o;
}

std::optional<ops::Operand> optional_operand(py::handle obj, const char* op) {
  if (obj.is_none()) return std::nullopt;
  return operand(obj, op);
}

}  // namespace genesis::python

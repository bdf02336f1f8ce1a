// Argument conversions shared by the bindings: sizes, integers and scalars.
#include "core/errors.h"
#include "python/bindings.h"

namespace genesis::python {

std::string type_name(py::handle obj) {
  return py::str(py::type::of(obj).attr("__name__")).cast<std::string>();
}

int64_t to_int(py::handle obj, const char* op, const char* what) {
  // Python ints and anything with __index__ (NumPy integers), never bool-as-size or floats.
  if (PyLong_Check(obj.ptr()) || (!PyFloat_Check(obj.ptr()) && PyIndex_Check(obj.ptr()))) {
    int overflow = 0;
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
    if (!index) throw py::error_already_set();
    long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    GENESIS_CHECK_VALUE(!overflow, op, what, " ", py::str(obj).cast<std::string>(),
                        " does not fit in 64 bits");
    return v;
  }
  GENESIS_FAIL(ErrorKind::Type, op, what, " must be an integer, got ", type_name(obj));
}

const Tensor& tensor_arg(py::handle obj, const char* op) {
  GENESIS_CHECK_TYPE(py::isinstance<Tensor>(obj), op, "expected a genesis.Tensor, got ",
                     type_name(obj));
  return obj.cast<const Tensor&>();
}

std::vector<py::object> sequence_items(py::handle seq, const char* op, const char* what,
                                       int64_t limit) {
  Py_ssize_t n = PySequence_Size(seq.ptr());
  if (n < 0) throw py::error_already_set();
  GENESIS_CHECK_VALUE(n <= limit, op, what, " has ", static_cast<long long>(n), " items; at most ",
                      limit, " are allowed");
  std::vector<py::object> items;
  items.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    items.push_back(py::reinterpret_steal<py::object>(PySequence_GetItem(seq.ptr(), i)));
    if (!items.back()) throw py::error_already_set();
  }
  return items;
}

Shape to_shape(py::handle seq, const char* op) {
  if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr()) && PyIndex_Check(seq.ptr()))
    return Shape{to_int(seq, op, "size")};
  GENESIS_CHECK_TYPE(PySequence_Check(seq.ptr()) && !py::isinstance<py::str>(seq), op,
                     "size must be a tuple of ints, got ", type_name(seq));
  Py_ssize_t n = PySequence_Size(seq.ptr());
  if (n < 0) throw py::error_already_set();
  GENESIS_CHECK_VALUE(n <= kMaxDims, op, "a tensor has at most ", kMaxDims, " dimensions, got ",
                      static_cast<long long>(n));
  Shape out;
  for (const py::object& item : sequence_items(seq, op, "size", kMaxDims))
    out.push_back(to_int(item, op, "size"));
  return out;
}

Shape to_shape(const py::args& args, const char* op) {
  if (args.size() == 1 && !PyIndex_Check(args[0].ptr())) return to_shape(py::handle(args[0]), op);
  Shape out;
  for (py::handle item : args) out.push_back(to_int(item, op, "size"));
  return out;
}

Shape to_sizes(const py::args& args, const char* op) {
  return checked_sizes(to_shape(args, op), op);
}

Shape checked_sizes(Shape sizes, const char* op) {
  for (int64_t s : sizes)
    GENESIS_CHECK_SHAPE(s >= 0, op, "negative dimension ", s, " in size ", shape_str(sizes));
  checked_numel(sizes, op);
  return sizes;
}

bool is_numpy_scalar(py::handle obj) {
  static py::handle generic = py::object(py::module_::import("numpy").attr("generic")).release();
  return PyObject_IsInstance(obj.ptr(), generic.ptr()) == 1;
}

bool is_scalar_like(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p)) return true;
  return !py::isinstance<py::array>(obj) && is_numpy_scalar(obj);
}

Scalar to_scalar(py::handle obj, const char* op) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p)) return Scalar(p == Py_True);
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (!overflow) return Scalar(static_cast<int64_t>(v));
    // Note [Integers beyond int64]: a Python int in [2**63, 2**64) (uint64's upper half) is its
    // float value: a float tensor gets that value (x * 2**63, nan_to_num(posinf=2**63), as
    // PyTorch), and an integer tensor a float result, where PyTorch wraps it or raises. Beyond
    // that both refuse it.
    unsigned long long u = overflow > 0 ? PyLong_AsUnsignedLongLong(p) : 0;
    if (overflow > 0 && !(u == static_cast<unsigned long long>(-1) && PyErr_Occurred()))
      return Scalar(static_cast<double>(u));
    PyErr_Clear();
    GENESIS_FAIL(ErrorKind::Value, op, "value ", py::str(obj).cast<std::string>(),
                 " is out of range for int64 (and for uint64)");
  }
  if (PyFloat_Check(p)) return Scalar(PyFloat_AS_DOUBLE(p));
  if (py::isinstance<Tensor>(obj)) {
    const Tensor& t = obj.cast<const Tensor&>();
    GENESIS_CHECK_VALUE(t.numel() == 1, op, "only one-element tensors can be used as scalars, got ",
                        t.numel(), " elements");
    return to_scalar(item(t, op), op);
  }
  if (py::isinstance<py::array>(obj) && py::reinterpret_borrow<py::array>(obj).size() == 1)
    return to_scalar(obj.attr("item")(), op);
  if (is_scalar_like(obj)) {  // NumPy scalar: go by its kind
    std::string kind = py::str(obj.attr("dtype").attr("kind")).cast<std::string>();
    if (kind == "b") return Scalar(obj.cast<bool>());
    if (kind == "i" || kind == "u")
      return to_scalar(py::int_(py::reinterpret_borrow<py::object>(obj)), op);
    if (kind == "f") return Scalar(obj.cast<double>());
  }
  GENESIS_FAIL(ErrorKind::Type, op, "expected a number (bool, int or float), got ", type_name(obj));
}

}  // namespace genesis::python

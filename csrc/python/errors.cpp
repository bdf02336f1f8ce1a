// One translation from the core's typed errors to Python exceptions.
#include "core/errors.h"

#include "python/bindings.h"

namespace genesis::python {

void init_errors(py::module_& m) {
  static py::handle oom_error = PyErr_NewExceptionWithDoc(
      "genesis._C.OutOfMemoryError", "Raised when a device runs out of memory (a RuntimeError).",
      PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = oom_error;
  // Note [Shape errors]
  // genesis chose ValueError for an invalid shape (as NumPy), PyTorch raises RuntimeError, and
  // code written for either catches its own class: ShapeError is both, so `except ValueError`
  // and `except RuntimeError` around a broadcast, view or expand both work.
  static py::handle shape_error = [] {
    py::tuple bases = py::make_tuple(py::handle(PyExc_ValueError), py::handle(PyExc_RuntimeError));
    return py::handle(PyErr_NewExceptionWithDoc(
        "genesis._C.ShapeError",
        "Raised for an invalid shape or size: both a ValueError and a RuntimeError.", bases.ptr(),
        nullptr));
  }();
  m.attr("ShapeError") = shape_error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* type = PyExc_RuntimeError;
      switch (e.kind()) {
        case ErrorKind::Runtime:
          type = PyExc_RuntimeError;
          break;
        case ErrorKind::Index:
          type = PyExc_IndexError;
          break;
        case ErrorKind::Value:
          type = PyExc_ValueError;
          break;
        case ErrorKind::Type:
          type = PyExc_TypeError;
          break;
        case ErrorKind::OutOfMemory:
          type = oom_error.ptr();
          break;
        case ErrorKind::Buffer:
          type = PyExc_BufferError;
          break;
        case ErrorKind::NotImplemented:
          type = PyExc_NotImplementedError;
          break;
        case ErrorKind::Shape:
          type = shape_error.ptr();
          break;
      }
      PyErr_SetString(type, e.what());
    }
  });
}

}  // namespace genesis::python

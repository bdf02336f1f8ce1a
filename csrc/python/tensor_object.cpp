#include "python/tensor_object.h"

#include <memory>

namespace genesis::python {

namespace {
PyTypeObject* tensor_type = nullptr;
}  // namespace

void set_tensor_type(py::handle cls) { tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr()); }

const Tensor* tensor_of(PyObject* obj) {
  if (tensor_type == nullptr || !PyObject_TypeCheck(obj, tensor_type)) return nullptr;
  // genesis.Tensor binds one C++ type, so its instances (and Python subclasses') hold it first.
  auto vh = reinterpret_cast<py::detail::instance*>(obj)->get_value_and_holder();
  if (!vh.holder_constructed()) return nullptr;
  return vh.value_ptr<Tensor>();
}

// Note [Unregistered results]: pybind11's cast of a new Tensor first searches its instance
// registry for the pointer, then registers the new object there and removes it again when the
// object dies: a hash-table insert and erase, with a heap node, on every op result. Nothing looks
// a Tensor object up by its C++ address (methods that return self return the Python object), so
// results skip the registry. pybind11's deallocation checks the per-instance "registered" flag and
// frees such an object like any other.
PyObject* new_tensor_object(Tensor&& t) {
  PyObject* self = py::detail::make_new_instance(tensor_type);
  if (self == nullptr) throw py::error_already_set();
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  auto vh = inst->get_value_and_holder();
  try {
    vh.value_ptr() = new Tensor(std::move(t));
  } catch (...) {
    Py_DECREF(self);
    throw;
  }
  inst->owned = true;
  using Holder = std::unique_ptr<Tensor>;  // py::class_<Tensor>'s default holder
  new (std::addressof(vh.holder<Holder>())) Holder(vh.value_ptr<Tensor>());
  vh.set_holder_constructed();
  return self;
}

}  // namespace genesis::python

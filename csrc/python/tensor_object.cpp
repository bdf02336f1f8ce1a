#include "python/tensor_object.h"

#include <memory>

#include "core/errors.h"

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
namespace {

// Moves `t` into the C++ part of a fresh instance and marks its holder constructed.
void construct_in(PyObject* self, Tensor&& t) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  auto vh = inst->get_value_and_holder();
  vh.value_ptr() = new Tensor(std::move(t));
  inst->owned = true;
  using Holder = std::unique_ptr<Tensor>;  // py::class_<Tensor>'s default holder
  new (std::addressof(vh.holder<Holder>())) Holder(vh.value_ptr<Tensor>());
  vh.set_holder_constructed();
}

newfunc pybind11_new = nullptr;

// Note [Tensor.__new__]: genesis.Tensor has no constructor (tensors come from factories and
// ops), but `Tensor.__new__(Tensor)` (copy.copy, pickling, subclass code) would otherwise make an
// object whose C++ part was never built, and every method would read garbage. Such objects hold
// an empty float32 CPU tensor instead, as torch.Tensor() is one.
PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* self = pybind11_new(type, args, kwargs);
  if (self == nullptr) return nullptr;
  try {
    auto vh = reinterpret_cast<py::detail::instance*>(self)->get_value_and_holder();
    if (!vh.holder_constructed())
      construct_in(self, Tensor::empty(Shape{0}, default_float(), kCPU));
  } catch (...) {
    Py_DECREF(self);
    py::detail::try_translate_exceptions();
    return nullptr;
  }
  return self;
}

}  // namespace

PyObject* new_tensor_object(Tensor&& t) {
  PyObject* self = py::detail::make_new_instance(tensor_type);
  if (self == nullptr) throw py::error_already_set();
  try {
    construct_in(self, std::move(t));
  } catch (...) {
    Py_DECREF(self);
    throw;
  }
  return self;
}

void install_tensor_new(py::handle cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  pybind11_new = type->tp_new;
  type->tp_new = tensor_new;
  // Tensor.__new__ itself: the inherited pybind11_object.__new__ refuses a type whose tp_new is
  // not its own ("is not safe").
  cls.attr("__new__") = py::staticmethod(py::cpp_function(
      [](py::handle cls_arg, py::args args, py::kwargs kwargs) {
        GENESIS_CHECK_TYPE(PyType_Check(cls_arg.ptr()) &&
                               PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls_arg.ptr()),
                                                reinterpret_cast<PyTypeObject*>(tensor_type)),
                           "Tensor.__new__", "expects genesis.Tensor or a subclass of it");
        PyObject* self =
            tensor_new(reinterpret_cast<PyTypeObject*>(cls_arg.ptr()), args.ptr(), kwargs.ptr());
        if (self == nullptr) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(self);
      },
      py::name("__new__"),
      py::doc("A new genesis.Tensor object holding an empty float32 tensor "
              "(Note [Tensor.__new__]); tensors come from factories.")));
}

}  // namespace genesis::python

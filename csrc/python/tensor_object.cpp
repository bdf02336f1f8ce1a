#include "python/tensor_object.h"

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

PyObject* new_tensor_object(Tensor&& t) {
  // py::cast with the type's record looked up once, not on every call.
  static const py::detail::type_info* info = py::detail::get_type_info(typeid(Tensor));
  return py::detail::type_caster_generic::cast(
             &t, py::return_value_policy::move, py::handle(), info, nullptr,
             [](const void* p) -> void* {
               return new Tensor(std::move(*const_cast<Tensor*>(static_cast<const Tensor*>(p))));
             })
      .ptr();
}

}  // namespace genesis::python

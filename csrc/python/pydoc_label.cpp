// Note [pydoc label]: help(genesis) printed every module-level function as
// "add(...) method of pybind11_builtins.pybind11_detail_function_record_v1_... instance". pydoc
// calls a builtin function a bound method unless its __self__ is a module or None, and pybind11
// keeps the function's record in __self__: the dispatcher reads it from there on every call, so
// it has to stay. The record type belongs to this extension alone (pybind11's module-local
// internals); a __class__ on it that reports types.ModuleType makes inspect.ismodule(f.__self__)
// true, as it is for CPython's own module functions, and pydoc prints a plain function. Calls
// never read __class__, so they cost nothing more.
#include "python/bindings.h"

namespace genesis::python {

void hide_pydoc_method_label(py::module_& m, const char* any_function) {
  py::object fn = m.attr(any_function);
  if (!PyCFunction_Check(fn.ptr())) return;
  PyObject* record = PyCFunction_GET_SELF(fn.ptr());
  PyTypeObject* type = record ? Py_TYPE(record) : nullptr;
  if (type == nullptr || !(type->tp_flags & Py_TPFLAGS_HEAPTYPE) || type == &PyModule_Type) return;
  py::object module_type = py::module_::import("types").attr("ModuleType");
  py::object as_module =
      py::module_::import("builtins").attr("property")(py::cpp_function([module_type](py::handle) {
        return module_type;
      }));
  // Set in the type's own dict: setattr(type, "__class__", ...) would assign the type's class.
  if (PyDict_SetItemString(type->tp_dict, "__class__", as_module.ptr()) != 0)
    throw py::error_already_set();
  PyType_Modified(type);
}

}  // namespace genesis::python

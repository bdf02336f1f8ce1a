// genesis.Size's C base (_C._SizeBase): a tuple whose slices are of the caller's type.
//
// Note [Size indexing in C]
// genesis.Size (genesis/_size.py) is a tuple subclass whose slices must stay Sizes, as
// torch.Size's do. Written as a Python __getitem__, every shape[i] of every layer call ran a
// Python function (about half a microsecond; a few hundred a training step of a small
// network). So the subscript lives here, as the mapping slot of a C base class that Size
// extends: an index is tuple's own lookup, a slice tuple's slice re-wrapped in the caller's
// type. Everything else about Size (numel, repr, +, *, pickling) stays in Python.
#include "python/bindings.h"

namespace genesis::python {

namespace {

PyObject* subscript(PyObject* self, PyObject* index) {
  PyObject* got = PyTuple_Type.tp_as_mapping->mp_subscript(self, index);
  if (got == nullptr || !PySlice_Check(index)) return got;
  // a slice: the items again, in an object of self's type (a Size stays a Size)
  PyTypeObject* type = Py_TYPE(self);
  const Py_ssize_t n = PyTuple_GET_SIZE(got);
  PyObject* out = type->tp_alloc(type, n);
  if (out != nullptr) {
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PyTuple_GET_ITEM(got, i);
      Py_INCREF(item);
      PyTuple_SET_ITEM(out, i, item);
    }
  }
  Py_DECREF(got);
  return out;
}

PyType_Slot kSlots[] = {
    {Py_mp_subscript, reinterpret_cast<void*>(&subscript)},
    {Py_tp_doc, const_cast<char*>("genesis.Size's base: a tuple whose slices keep its type.")},
    {0, nullptr},
};

PyType_Spec kSpec = {"genesis._C._SizeBase", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                     kSlots};

}  // namespace

void init_size_base(py::module_& m) {
  py::tuple bases = py::make_tuple(
      py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyTuple_Type)));
  PyObject* type = PyType_FromSpecWithBases(&kSpec, bases.ptr());
  if (type == nullptr) throw py::error_already_set();
  m.add_object("_SizeBase", py::reinterpret_steal<py::object>(type));
}

}  // namespace genesis::python

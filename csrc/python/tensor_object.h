#pragma once
// Direct access to the Tensor inside a genesis.Tensor Python object, for the operator fast
// paths: pybind11's generic casts look the C++ type up in a hash table on every call, which is a
// visible share of a small CUDA op's host time.
#include "python/bindings.h"

namespace genesis::python {

// Remembers the Python type that wraps Tensor (called once, when the class is made).
void set_tensor_type(py::handle cls);

// The Tensor an object holds, or nullptr when it is no genesis.Tensor (or a subclass instance
// whose C++ part was never constructed).
const Tensor* tensor_of(PyObject* obj);

// A new reference to a Python object that takes over `t`.
PyObject* new_tensor_object(Tensor&& t);

// Tensor.__new__ that never leaves the C++ part unbuilt (Note [Tensor.__new__]).
void install_tensor_new(py::handle cls);

}  // namespace genesis::python

#pragma once
// Python arguments of the elementwise ops as ops::Operand: a tensor (borrowed from its Python
// object, which outlives the call) or a number.
#include <optional>

#include "ops/elementwise.h"
#include "python/bindings.h"

namespace genesis::python {

// A tensor or a Python/NumPy number; nothing for other objects (operators then answer
// NotImplemented, so Python raises its usual TypeError).
std::optional<ops::Operand> try_operand(py::handle obj, const char* op);
// The same, raising TypeError for other objects.
ops::Operand operand(py::handle obj, const char* op);
// None stays nothing.
std::optional<ops::Operand> optional_operand(py::handle obj, const char* op);

// Note [out= arguments] (ops/elementwise_composed.h): the result, or out (the same Python object)
// after writing the result into it.
py::object finish_out(Tensor result, py::handle out, const char* name);
// out= for a result of several tensors, `parts`, returned as the named tuple type `type` (None:
// a plain tuple): without out, type(*parts); else out must be a tuple or list of as many
// tensors, each part is written into its out tensor, and the result holds the out tensors.
py::object finish_tuple_out(py::handle type, py::tuple parts, py::handle out, const char* name);
// ops::write_out into a Python tensor, first giving PyTorch's UserWarning when a non-empty out
// of another shape is about to be resized (Note [out= arguments]).
void write_out_warned(py::handle out, const Tensor& result, const char* name);

// Makes `a + b`, `a += b`, `a < b`, `-a` ... on genesis.Tensor call the ops directly through
// CPython's number and comparison slots (called after the pybind11 methods are defined).
void install_operator_slots(py::handle tensor_class);

}  // namespace genesis::python

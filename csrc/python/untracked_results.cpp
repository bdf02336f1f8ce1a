// Results of ops without a derivative get a "NotImplemented" node (Note [Ops without a
// derivative] in autograd/node.h); called by the bindings' entry point (python/call_habits.cpp).
#include <string_view>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/meta.h"
#include "autograd/node.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

namespace au = genesis::autograd;

// Names whose floating results are, by PyTorch's definition, outside the graph: detached
// aliases, the gradient itself, fresh tensors shaped like an input, copies for pickling. The
// property getters (Tensor.grad, .data, .T ...) are nameless in pybind11: none of them is
// left to this check (the views among them record their own nodes).
bool outside_the_graph(std::string_view name) {
  if (name.empty()) return true;
  auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
  auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.substr(name.size() - s.size()) == s;
  };
  if (starts("new_") || ends("_like")) return true;
  for (std::string_view n :
       {"detach", "detach_", "data", "grad", "requires_grad_", "tensor", "__deepcopy__", "__copy__",
        "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__",
        // slogdet's sign: no gradient by definition (its logabsdet records its own node)
        "slogdet",
        // counts: PyTorch's histc result does not require grad (histogram's does, and raises)
        "histc"})
    if (name == n) return true;
  return false;
}

// A floating tensor result that is outside any graph, or null.
Tensor* untracked(py::handle h) {
  if (!py::isinstance<Tensor>(h)) return nullptr;
  Tensor& t = h.cast<Tensor&>();
  if (!au::is_differentiable_dtype(t.dtype()) || au::requires_grad(t)) return nullptr;
  return &t;
}

// The tensors among an argument (a tensor, or a list or tuple of them) that require grad.
void add_tracked(py::handle arg, std::vector<Tensor>& found) {
  if (py::isinstance<Tensor>(arg)) {
    const Tensor& t = arg.cast<const Tensor&>();
    if (au::requires_grad(t)) found.push_back(t);
  } else if (PyList_Check(arg.ptr()) || PyTuple_Check(arg.ptr())) {
    for (py::handle item : py::reinterpret_borrow<py::sequence>(arg))
      if (py::isinstance<Tensor>(item) && au::requires_grad(item.cast<const Tensor&>()))
        found.push_back(item.cast<Tensor>());
  }
}

}  // namespace

PyObject* track_untracked_results(PyObject* self, PyObject* const* args, size_t nargsf,
                                  PyObject* kwnames, PyObject* result) {
  // Called from CPython's call of the bindings' entry point: every C++ exception is caught here
  // (the result is dropped and the error raised in Python), none may leave.
  try {
    if (!au::grad_ever_required() || !au::GradMode::is_enabled()) return result;
    py::handle r(result);
    std::vector<Tensor*> outputs;
    if (Tensor* t = untracked(r)) {
      outputs.push_back(t);
    } else if (PyTuple_Check(result) || PyList_Check(result)) {
      for (py::handle item : py::reinterpret_borrow<py::sequence>(r))
        if (Tensor* t = untracked(item)) outputs.push_back(t);
    }
    if (outputs.empty()) return result;
    std::vector<Tensor> inputs;
    size_t nargs = PyVectorcall_NARGS(nargsf);
    size_t nkw = kwnames == nullptr ? 0 : static_cast<size_t>(PyTuple_GET_SIZE(kwnames));
    for (size_t i = 0; i < nargs + nkw; ++i) add_tracked(args[i], inputs);
    if (inputs.empty()) return result;
    const auto* rec = py::detail::function_record_ptr_from_PyObject(self);
    if (rec == nullptr || outside_the_graph(rec->name)) return result;
    // Outputs that are inputs (an op returning its argument) keep their own history.
    for (Tensor*& out : outputs)
      for (const Tensor& in : inputs)
        if (out->autograd_meta() != nullptr && out->autograd_meta() == in.autograd_meta())
          out = nullptr;
    std::erase(outputs, nullptr);
    // PyTorch declares unique's derivatives not implemented (NotImplementedError); the ops it
    // has no entry for raise a RuntimeError.
    std::string_view name = rec->name;
    ErrorKind kind = name == "unique" || name == "unique_consecutive" ? ErrorKind::NotImplemented
                                                                      : ErrorKind::Runtime;
    au::Recorder rec_node = au::record_not_implemented(rec->name, inputs, kind);
    au::set_history(rec_node, outputs);
  } catch (py::error_already_set& e) {
    Py_DECREF(result);
    e.restore();
    return nullptr;
  } catch (...) {
    Py_DECREF(result);
    py::detail::try_translate_exceptions();
    return nullptr;
  }
  return result;
}

}  // namespace genesis::python

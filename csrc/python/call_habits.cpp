// What a call does when none of a binding's overloads takes its arguments: PyTorch's keyword
// habits (axis=, keepdims=, size=, out=), then a clean "[op] ..." TypeError.
#include <pybind11/detail/exception_translation.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/errors.h"
#include "python/autocast.h"
#include "python/bindings.h"
#include "python/op_table.h"
#include "python/operand.h"

namespace genesis::python {

// Note [Call habits]
// pybind11 answers a call that no overload takes with a TypeError listing every C++ signature
// and "Invoked with: ...". Rather than add a catch-all `(*args, **kwargs)` overload to every
// binding (pybind11 then switches every single-overload function to its two-pass no-convert /
// convert matching, where the catch-all would win the first pass, and rewrites every docstring
// as "Overloaded function"), genesis wraps the one C entry point pybind11 gives every bound
// function object: install_call_habits (run after everything is bound) points the PyMethodDef
// of each function, method, property accessor and constructor of the module, its submodules
// and its classes at `dispatch` below, which calls pybind11's dispatcher unchanged. A normal call
// costs one more C call; docstrings, signatures and stubs don't change. Only when pybind11
// reports that no overload matched does `dispatch` look at the call, once:
// - axis= -> dim=, keepdims= -> keepdim=, x=/a=/x1= -> input= and x2= -> other=, for every
//   binding with that parameter (and none of the alias's name), as PyTorch's argument parser
//   does for its native functions; not for the few that PyTorch writes in Python and that
//   refuse them (norm, split, unique, unique_consecutive, Tensor.unflatten).
// - size= (shape=, dims=, repeats=) -> the positional sizes, for the bindings that take their
//   sizes as *args (zeros(*size), x.view(*size), x.permute(*dims) ...): PyTorch's name for them.
// - requires_grad=, for PyTorch's factories (takes_requires_grad): the call runs without it
//   and the result is made a leaf that requires grad (requires_grad_).
// - out=, for the functions PyTorch gives out= (kOutOps): the call runs without it and the
//   result is written into out by ops::write_out (Note [out= arguments]); a factory called
//   without dtype= takes out's dtype and device, as in PyTorch.
// If that changed the call, it is tried again; if nothing changed or it still fails, the error
// is "[op] <what was wrong>; accepted: op(<signature>)" as a TypeError. A call with a keyword
// that no overload has goes to these rewrites at once: pybind11's refusal would first format
// the repr of every argument into its message, a pass over each tensor's values (mm(a, b,
// out=c) formatted all three).
// Every result, matched at once or after a rewrite, then passes track_untracked_results (Note
// [Ops without a derivative] in autograd/node.h).
// This leans on pybind11 internals (detail::function_record, the dispatcher being the
// PyMethodDef's ml_meth, the wording "NAME(): incompatible function arguments"); if a pybind11
// upgrade changes them, the dump comes back and tests/ops/test_habits.py fails.

namespace {

using Dispatch = PyObject* (*)(PyObject*, PyObject* const*, size_t, PyObject*);
Dispatch pybind_dispatch = nullptr;

// The per-op lists come from the op table (csrc/python/op_table.h, generated from
// genesis/_op_table.py).
bool refuses_numpy_aliases(std::string_view name, bool is_method) {
  return op_table::contains(op_table::kNoNumpyAliases, name) ||
         (is_method && op_table::contains(op_table::kMethodNoNumpyAliases, name));
}

const char* sizes_keyword(std::string_view name) {
  for (const op_table::SizesKeyword& entry : op_table::kSizesKeywords)
    if (entry.name == name) return entry.keyword;
  return nullptr;
}

bool takes_out(std::string_view name) { return op_table::contains(op_table::kOut, name); }

bool out_needs_dim(std::string_view name) {
  return op_table::contains(op_table::kOutNeedsDim, name);
}

bool is_factory(std::string_view name) { return op_table::contains(op_table::kFactories, name); }

bool takes_requires_grad(std::string_view name, bool is_method) {
  return is_method ? op_table::contains(op_table::kMethodRequiresGrad, name)
                   : op_table::contains(op_table::kRequiresGrad, name);
}

bool has_param(const py::detail::function_record* rec, std::string_view param) {
  for (auto* it = rec; it != nullptr; it = it->next)
    for (const auto& a : it->args)
      if (a.name != nullptr && param == a.name) return true;
  return false;
}

bool takes_var_positional(const py::detail::function_record* rec) {
  for (auto* it = rec; it != nullptr; it = it->next)
    if (it->has_args) return true;
  return false;
}

bool takes_var_keywords(const py::detail::function_record* rec) {
  for (auto* it = rec; it != nullptr; it = it->next)
    if (it->has_kwargs) return true;
  return false;
}

// A call as Python sees it: positional arguments (self first for a method) and keywords.
struct Call {
  std::vector<py::object> args;
  py::dict kwargs;
};

Call read_call(PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  Call c;
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  for (Py_ssize_t i = 0; i < n; ++i) c.args.push_back(py::reinterpret_borrow<py::object>(args[i]));
  if (kwnames != nullptr) {
    Py_ssize_t k = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < k; ++i)
      c.kwargs[PyTuple_GET_ITEM(kwnames, i)] = py::reinterpret_borrow<py::object>(args[n + i]);
  }
  return c;
}

PyObject* call_pybind(PyObject* self, const Call& c) {
  std::vector<PyObject*> flat;
  for (const auto& a : c.args) flat.push_back(a.ptr());
  py::tuple names(c.kwargs.size());
  size_t i = 0;
  for (auto [k, v] : c.kwargs) {
    names[i++] = k;
    flat.push_back(v.ptr());
  }
  return pybind_dispatch(self, flat.data(), c.args.size(),
                         c.kwargs.empty() ? nullptr : names.ptr());
}

// Every overload's signature, without the module prefix.
std::string signatures(const py::detail::function_record* rec) {
  std::string out;
  for (auto* it = rec; it != nullptr; it = it->next) {
    std::string sig = std::string(rec->name) + it->signature;
    for (std::string_view prefix : {"genesis._C._nn.", "genesis._C._linalg.", "genesis._C."}) {
      for (size_t p; (p = sig.find(prefix)) != std::string::npos;) sig.erase(p, prefix.size());
    }
    out += (it == rec ? "" : " | ") + sig;
  }
  return out;
}

// What was wrong with the call, in a few words: a keyword no signature has (after the habits'
// rewrites, so an alias or out= that would have been taken is not blamed), else the types.
std::string what_was_wrong(const py::detail::function_record* rec, const Call& original,
                           const Call& rewritten) {
  if (!takes_var_keywords(rec)) {
    for (auto [k, v] : rewritten.kwargs) {
      std::string key = py::str(k).cast<std::string>();
      if (!has_param(rec, key)) return "unexpected keyword argument '" + key + "'";
    }
  }
  std::string got;
  size_t first = rec->is_method ? 1 : 0;
  for (size_t i = first; i < original.args.size(); ++i)
    got += (got.empty() ? "" : ", ") + type_name(original.args[i]);
  for (auto [k, v] : original.kwargs)
    got += (got.empty() ? "" : ", ") + py::str(k).cast<std::string>() + "=" + type_name(v);
  return "the arguments (" + got + ") match no signature";
}

[[noreturn]] void refuse(const py::detail::function_record* rec, const Call& original,
                         const Call& rewritten) {
  // A constructor is named after its class: "[Generator] ...".
  std::string op = rec->is_constructor ? py::str(rec->scope.attr("__name__")).cast<std::string>()
                                       : std::string(rec->name);
  throw py::type_error("[" + op + "] " + what_was_wrong(rec, original, rewritten) +
                       "; accepted: " + signatures(rec));
}

// True (and the error cleared) when pybind11 just said that no overload matched.
bool no_overload_matched(const py::detail::function_record* rec) {
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return false;
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  PyErr_NormalizeException(&type, &value, &trace);
  std::string want = std::string(rec->name) + "(): incompatible " +
                     (rec->is_constructor ? "constructor" : "function") + " arguments";
  bool match = false;
  if (PyObject* text = value != nullptr ? PyObject_Str(value) : nullptr) {
    const char* c = PyUnicode_AsUTF8(text);
    match = c != nullptr && std::string_view(c).substr(0, want.size()) == want;
    Py_DECREF(text);
  }
  PyErr_Clear();  // from PyObject_Str or PyUnicode_AsUTF8, if either failed
  if (match) {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    return true;
  }
  PyErr_Restore(type, value, trace);
  return false;
}

// PyTorch's rewrites (Note [Call habits]); true when the call changed.
bool rewrite(const py::detail::function_record* rec, Call& c, py::object& out,
             bool& requires_grad) {
  std::string_view name = rec->name;
  bool changed = false;
  if (c.kwargs.contains("requires_grad") && takes_requires_grad(name, rec->is_method) &&
      !has_param(rec, "requires_grad")) {
    requires_grad = py::bool_(c.kwargs.attr("pop")("requires_grad"));
    changed = true;
  }
  if (!refuses_numpy_aliases(name, rec->is_method)) {
    constexpr std::pair<const char*, const char*> kAliases[] = {
        {"axis", "dim"}, {"keepdims", "keepdim"}, {"x", "input"},
        {"a", "input"},  {"x1", "input"},         {"x2", "other"}};
    for (auto [alias, real] : kAliases) {
      // Only a name the binding lacks: linalg.vector_norm's own first parameter is x.
      if (c.kwargs.contains(alias) && !c.kwargs.contains(real) && has_param(rec, real) &&
          !has_param(rec, alias)) {
        c.kwargs[real] = c.kwargs.attr("pop")(alias);
        changed = true;
      }
    }
  }
  const char* sizes = sizes_keyword(name);
  size_t own = rec->is_method ? 1 : 0;
  if (sizes != nullptr && takes_var_positional(rec) && c.kwargs.contains(sizes) &&
      c.args.size() == own) {
    c.args.push_back(c.kwargs.attr("pop")(sizes));
    changed = true;
  }
  if (!rec->is_method && c.kwargs.contains("out") && takes_out(name)) {
    bool has_dim = c.args.size() >= 2 || c.kwargs.contains("dim");
    if (!out_needs_dim(name) || has_dim) {
      out = c.kwargs.attr("pop")("out");
      changed = true;
      if (!out.is_none() && is_factory(name) && py::isinstance<Tensor>(out) &&
          !c.kwargs.contains("dtype")) {
        const Tensor& o = out.cast<const Tensor&>();
        c.kwargs["dtype"] = dtype_object(o.dtype());
        if (!c.kwargs.contains("device")) c.kwargs["device"] = device_object(o.device());
      }
    }
  }
  return changed;
}

// out= of a result that is a tensor or a tuple of tensors (a named tuple stays one).
py::object write_result(const char* name, py::object result, py::object out) {
  if (out.is_none()) return result;
  if (py::isinstance<Tensor>(result)) {
    write_out_warned(out, result.cast<const Tensor&>(), name);
    return out;
  }
  GENESIS_CHECK_TYPE(py::isinstance<py::tuple>(result), name, "this call's result is a ",
                     type_name(result), ", which out= can't hold");
  // A named tuple stays one; a plain tuple stays a tuple.
  py::object type = py::hasattr(result, "_fields") ? py::object(py::type::of(result)) : py::none();
  return finish_tuple_out(type, py::reinterpret_borrow<py::tuple>(result), out, name);
}

PyObject* on_no_match(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                      const py::detail::function_record* rec) {
  try {
    Call c = read_call(args, nargsf, kwnames);
    Call original = c;
    original.kwargs = py::dict(c.kwargs);
    py::object out = py::none();
    bool requires_grad = false;
    if (!rewrite(rec, c, out, requires_grad)) refuse(rec, original, c);
    PyObject* r = call_pybind(self, c);
    if (r == nullptr) {
      if (no_overload_matched(rec)) refuse(rec, original, c);
      return nullptr;
    }
    py::object result = write_result(rec->name, py::reinterpret_steal<py::object>(r), out);
    // requires_grad=: the factory's result becomes a leaf that requires grad, as in PyTorch.
    if (requires_grad && py::isinstance<Tensor>(result)) result.attr("requires_grad_")(true);
    return result.release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return nullptr;
}

// Whether the call has a keyword that no overload of rec takes (nor a **kwargs): pybind11 would
// refuse it, after formatting every argument's repr into its message (for a tensor, a pass over
// its values), so such a call goes to the habits at once.
bool has_unknown_keyword(const py::detail::function_record* rec, PyObject* kwnames) {
  if (kwnames == nullptr || rec == nullptr || takes_var_keywords(rec)) return false;
  for (Py_ssize_t i = 0, k = PyTuple_GET_SIZE(kwnames); i < k; ++i) {
    const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
    if (key == nullptr) {
      PyErr_Clear();
      return false;
    }
    if (!has_param(rec, key)) return true;
  }
  return false;
}

PyObject* dispatch_unchanged(PyObject* self, PyObject* const* args, size_t nargsf,
                             PyObject* kwnames) {
  if (kwnames != nullptr) {  // out= of an op without its own, say: no failed call first
    const py::detail::function_record* rec = py::detail::function_record_ptr_from_PyObject(self);
    if (has_unknown_keyword(rec, kwnames)) {
      PyObject* r = on_no_match(self, args, nargsf, kwnames, rec);
      return r == nullptr ? nullptr : track_untracked_results(self, args, nargsf, kwnames, r);
    }
  }
  PyObject* r = pybind_dispatch(self, args, nargsf, kwnames);
  if (r != nullptr) return track_untracked_results(self, args, nargsf, kwnames, r);
  // CPython called this function pointer: no C++ exception may leave it (a RecursionError
  // raised by a Python call in here would otherwise end the process).
  try {
    const py::detail::function_record* rec = py::detail::function_record_ptr_from_PyObject(self);
    if (rec == nullptr || !no_overload_matched(rec)) return nullptr;
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
  r = on_no_match(self, args, nargsf, kwnames, py::detail::function_record_ptr_from_PyObject(self));
  // The rewritten call's arguments are the caller's, renamed: the inputs are still here.
  return r == nullptr ? nullptr : track_untracked_results(self, args, nargsf, kwnames, r);
}

// Under autocast, a listed function's arguments are cast first (Note [Autocast]).
PyObject* dispatch(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  if (autocast::active())
    return autocast::call_bound(self, args, nargsf, kwnames, &dispatch_unchanged);
  return dispatch_unchanged(self, args, nargsf, kwnames);
}

// Points a pybind11 function object (or the instance method wrapping one) at `dispatch`.
void wrap(py::handle obj) {
  PyObject* f = obj.ptr();
  if (PyInstanceMethod_Check(f)) f = PyInstanceMethod_GET_FUNCTION(f);
  if (py::isinstance(obj, py::module_::import("builtins").attr("staticmethod")))
    f = obj.attr("__func__").ptr();
  if (!PyCFunction_Check(f)) return;
  auto* def = reinterpret_cast<PyCFunctionObject*>(f)->m_ml;
  if (py::detail::function_record_ptr_from_PyObject(PyCFunction_GET_SELF(f)) == nullptr) return;
  auto meth = reinterpret_cast<Dispatch>(reinterpret_cast<void (*)()>(def->ml_meth));
  if (meth == &dispatch) return;
  if (pybind_dispatch == nullptr) pybind_dispatch = meth;
  if (meth != pybind_dispatch) return;  // not pybind11's (never expected)
  def->ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&dispatch));
}

void wrap_all(py::handle scope) {
  py::dict d = scope.attr("__dict__");
  py::handle property = reinterpret_cast<PyObject*>(&PyProperty_Type);
  for (auto [k, v] : d) {
    std::string name = py::str(k).cast<std::string>();
    if (name == "__new__") continue;
    if (py::isinstance(v, property)) {  // a property's getter and setter
      for (const char* part : {"fget", "fset"}) wrap(v.attr(part));
      continue;
    }
    wrap(v);
  }
}

// Every class bound in `m` (genesis.Generator, genesis.device, ...), besides Tensor.
void wrap_classes(py::handle m) {
  py::dict d = m.attr("__dict__");
  for (auto [k, v] : d) {
    if (!PyType_Check(v.ptr())) continue;
    py::object owner = py::getattr(v, "__module__", py::none());
    if (py::isinstance<py::str>(owner) && owner.cast<std::string>().rfind("genesis", 0) == 0)
      wrap_all(v);
  }
}

}  // namespace

void install_call_habits(py::module_& m, py::handle tensor_class) {
  wrap_all(m);
  wrap_all(tensor_class);
  wrap_classes(m);
  for (const char* sub : {"_linalg", "_nn", "_cuda"}) {
    if (!py::hasattr(m, sub)) continue;
    wrap_all(m.attr(sub));
    wrap_classes(m.attr(sub));
  }
}

}  // namespace genesis::python

// Note [Docstrings in Python]
// The docstrings of the compiled functions, methods and classes live in genesis/_docs/ (Python
// text with shared fragments), so an edit to one never recompiles C++. `import genesis` installs
// them (genesis/_docs/__init__.py) through the two hooks below:
// - _original_doc(f): what pybind11 wrote into the function's PyMethodDef at definition (its
//   signature lines, nothing else), remembered before the first replacement, so installing
//   twice composes from the same text.
// - _set_function_doc(f, doc): replaces the PyMethodDef's ml_doc. genesis/_docs composes it as
//   CPython's own builtins do, "name(params)\n--\n\n" and then the text that f.__doc__ shows
//   (pybind11's signature lines and the docstring, the same text as when the docstring was
//   compiled in). CPython reads the first part as __text_signature__, so inspect.signature works
//   on every compiled function.
// pybind11 allocates ml_doc with strdup and frees it with free() when the function dies (one
// PyMethodDef per overload chain); the replacement is allocated the same way, and the original
// is kept, unfreed, as _original_doc's answer.
// - _set_type_doc(type, internal, shown): a class's tp_doc (with a text signature, which CPython
//   reads for inspect.signature(cls)) and the __doc__ its dict shows (pybind11's enums compute it
//   from tp_doc and their members until it is replaced).
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "core/errors.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

PyMethodDef* doc_method_def(py::handle fn, const char* op) {
  PyObject* f = fn.ptr();
  if (PyInstanceMethod_Check(f)) f = PyInstanceMethod_GET_FUNCTION(f);
  if (PyCFunction_Check(f)) return reinterpret_cast<PyCFunctionObject*>(f)->m_ml;
  // A method written as a plain PyMethodDef (cuda_graph.cpp's replay).
  if (Py_IS_TYPE(f, &PyMethodDescr_Type))
    return reinterpret_cast<PyMethodDescrObject*>(f)->d_method;
  GENESIS_FAIL(ErrorKind::Type, op, "expected a compiled function, got ", type_name(fn));
}

// The text each PyMethodDef had before the first replacement, kept as it was: the replacements
// are ours to free, the original stays its owner's (pybind11's, or a string literal).
std::unordered_map<PyMethodDef*, const char*>& doc_originals() {
  static auto* kept = new std::unordered_map<PyMethodDef*, const char*>();
  return *kept;
}

const char* pybind_doc(PyMethodDef* def) {
  auto [it, added] = doc_originals().try_emplace(def, def->ml_doc);
  return it->second != nullptr ? it->second : "";
}

}  // namespace

void init_docstrings(py::module_& m) {
  m.def("_original_doc",
        [](py::handle fn) { return pybind_doc(doc_method_def(fn, "_original_doc")); });
  m.def("_set_function_doc", [](py::handle fn, const std::string& doc) {
    PyMethodDef* def = doc_method_def(fn, "_set_function_doc");
    const char* original = pybind_doc(def);  // remembered before the first replacement
    char* copy = strdup(doc.c_str());
    if (copy == nullptr) throw std::bad_alloc();
    if (def->ml_doc != original) std::free(const_cast<char*>(def->ml_doc));
    def->ml_doc = copy;
  });
  m.def("_set_type_doc", [](py::handle type, const std::string& internal, py::handle shown) {
    if (!PyType_Check(type.ptr()))
      GENESIS_FAIL(ErrorKind::Type, "_set_type_doc", "expected a class, got ", type_name(type));
    auto* t = reinterpret_cast<PyTypeObject*>(type.ptr());
    if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE))
      GENESIS_FAIL(ErrorKind::Type, "_set_type_doc", "expected a class of this module");
    // A heap type owns tp_doc, allocated with PyObject_Malloc (CPython frees it so).
    char* copy = static_cast<char*>(PyObject_Malloc(internal.size() + 1));
    if (copy == nullptr) throw std::bad_alloc();
    std::memcpy(copy, internal.c_str(), internal.size() + 1);
    PyObject_Free(const_cast<char*>(t->tp_doc));
    t->tp_doc = copy;
    // __doc__ is the dict's entry: `shown`, unless shown is None and the entry computes the text
    // (pybind11's enums read tp_doc and add their members).
    PyObject* in_dict = PyDict_GetItemString(t->tp_dict, "__doc__");
    bool plain = in_dict == nullptr || in_dict == Py_None || PyUnicode_Check(in_dict);
    if (!shown.is_none() || plain) {
      if (PyDict_SetItemString(t->tp_dict, "__doc__", shown.ptr()) != 0)
        throw py::error_already_set();
    }
    PyType_Modified(t);
  });
}

}  // namespace genesis::python

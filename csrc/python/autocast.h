#pragma once
// Autocast: per-thread mixed-precision regions that cast the inputs of the ops on PyTorch's
// lists (Note [Autocast] in autocast.cpp).
#include "python/bindings.h"

namespace genesis::python::autocast {

namespace detail {
// Whether a region is on for either device type and no listed op is running below (read on
// every bound call, so it is one thread-local flag).
extern thread_local bool active_flag;
}  // namespace detail

inline bool active() { return detail::active_flag; }

// The vectorcall that runs a bound function unchanged (call_habits.cpp's dispatch).
using Vectorcall = PyObject* (*)(PyObject*, PyObject* const*, size_t, PyObject*);

// A bound function's call under autocast: its inputs cast as its policy asks, then `call` with
// autocast off until it returns. Calls `call` unchanged when the function has no policy for the
// device type of its tensors. Only for active().
PyObject* call_bound(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                     Vectorcall call);

// _C._amp: the state, the policy table and the decorated Python functions' calls.
void init(py::module_& m);

}  // namespace genesis::python::autocast

// The GIL hooks of UnlockedRegion (Note [Releasing the caller's lock] in core/caller_lock.h).
#include "core/caller_lock.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

// Lets the GIL go only when this thread holds it: a region opened under pybind11's
// gil_scoped_release, or on a thread Python never saw, does nothing.
void* release_gil() { return PyGILState_Check() ? PyEval_SaveThread() : nullptr; }

void reacquire_gil(void* state) { PyEval_RestoreThread(static_cast<PyThreadState*>(state)); }

}  // namespace

void install_caller_lock() { install_caller_lock_hooks({&release_gil, &reacquire_gil}); }

}  // namespace genesis::python

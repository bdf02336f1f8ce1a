#pragma once
// Shared pieces of the bindings: Python <-> C++ conversions for dtypes, devices, shapes and
// scalars, and each area's init function.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "core/device.h"
#include "core/scalar.h"
#include "core/tensor.h"

namespace py = pybind11;

namespace genesis::python {

// The Python-side dtype: one immortal object per ScalarType, so `t.dtype is genesis.float32`.
struct DType {
  ScalarType type;
};
py::object dtype_object(ScalarType type);
// Accepts genesis dtypes, names ("float32"), Python bool/int/float and NumPy dtypes.
ScalarType to_dtype(py::handle obj, const char* op);
std::optional<ScalarType> to_optional_dtype(py::handle obj, const char* op);
// The NumPy dtype for a ScalarType; raises TypeError for bfloat16.
py::dtype numpy_dtype(ScalarType type, const char* op);
// The ScalarType for a NumPy dtype; raises TypeError for unsupported ones.
ScalarType from_numpy_dtype(const py::dtype& dt, const char* op);

// Accepts genesis.device, "cpu"/"cuda"/"cuda:N" and an int (a CUDA index). CUDA devices come
// back with a concrete index.
Device to_device(py::handle obj, const char* op);
Device to_device_or(py::handle obj, Device fallback, const char* op);
// The device of factories given no device=: the CPU unless genesis.set_default_device changed it.
Device default_device();
py::object device_object(Device device);

// Sizes from `f(2, 3)`, `f((2, 3))` or `f([2, 3])`; raises TypeError for non-integers.
// The items of a Python sequence, read by len() and [i] with each result checked: a __len__ or
// __getitem__ that raises propagates its own exception (pybind11's sequence iterator would call
// on with it pending), and more than `limit` items raise "[op] <what> has N items; at most ..."
// before any item is read.
// The name of obj's Python type, for messages ("list", "Tensor").
std::string type_name(py::handle obj);
// obj as a tensor, or "[op] expected a genesis.Tensor, got <type>" (TypeError).
const Tensor& tensor_arg(py::handle obj, const char* op);
std::vector<py::object> sequence_items(py::handle seq, const char* op, const char* what,
                                       int64_t limit);
Shape to_shape(const py::args& args, const char* op);
Shape to_shape(py::handle seq, const char* op);
int64_t to_int(py::handle obj, const char* op, const char* what);
// to_shape plus the check that every size is non-negative (for creation ops).
Shape to_sizes(const py::args& args, const char* op);
Shape checked_sizes(Shape sizes, const char* op);

// A Python number (bool, int, float, NumPy scalar, one-element tensor) as a Scalar.
Scalar to_scalar(py::handle obj, const char* op);
bool is_scalar_like(py::handle obj);
bool is_numpy_scalar(py::handle obj);  // an instance of numpy.generic

// genesis.tensor(data): copies any array-like (nested sequences, NumPy arrays, tensors).
Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, Device device);
// Shares a NumPy array's memory (genesis.from_numpy).
Tensor tensor_from_numpy(py::array array, const char* op);
// A NumPy array sharing the CPU tensor's memory.
py::array tensor_to_numpy(const Tensor& t, const char* op);

py::object item(const Tensor& t, const char* op);

// _original_doc, _set_function_doc, _set_type_doc (Note [Docstrings in Python], docstrings.cpp).
void init_docstrings(py::module_& m);
void init_errors(py::module_& m);
void init_dtype(py::module_& m);
void init_device(py::module_& m);
void init_tensor(py::module_& m, py::class_<Tensor>& cls);
// _C._SizeBase, genesis.Size's base (Note [Size indexing in C] in size_base.cpp).
void init_size_base(py::module_& m);
void init_linalg(py::module_& m, py::class_<Tensor>& cls);
void init_convert(py::module_& m, py::class_<Tensor>& cls);
void init_creation(py::module_& m);
void init_math(py::module_& m, py::class_<Tensor>& cls);
// The elementwise ops of issue 15 (csrc/python/math_functions.cpp).
void init_math_functions(py::module_& m, py::class_<Tensor>& cls);
void init_reduce(py::module_& m, py::class_<Tensor>& cls);
// The op families bound after these (join, sort, scan, products, ...) are declared and
// called in order by the generated op_families.h (BOUND_FAMILIES in genesis/_op_table.py).
// genesis.where(condition): the tuple of nonzero(condition)'s coordinates (index_ops.cpp).
py::object where_one(const Tensor& condition);
// Lets the core release the GIL around long work (Note [Releasing the caller's lock]).
void install_caller_lock();
}  // namespace genesis::python
namespace genesis::ops {
class Generator;
}
namespace genesis::python {
// A seed: any Python integer in [-2**63, 2**64); negatives wrap to their two's complement.
uint64_t to_seed(py::handle obj);
// A generator= argument: None (the default generator, returned as null) or a genesis.Generator.
ops::Generator* generator_of(py::handle obj, const char* op);
void init_index(py::module_& m, py::class_<Tensor>& cls);
// x[key] through CPython's mapping slot (Note [Operator slots]); after __getitem__ is defined.
void install_index_slot(py::handle tensor_class);
void init_numpy(py::module_& m, py::class_<Tensor>& cls);
void init_cuda(py::module_& m);
void init_distributed(py::module_& m);
void init_dlpack(py::module_& m, py::class_<Tensor>& cls);
void init_testing(py::module_& m);
void init_autograd(py::module_& m, py::class_<Tensor>& cls);  // autograd.cpp
// Storage identity and bytes, tensors over storages: for pickling and genesis.save/load
// (serialization.cpp; after init_tensor, which binds UntypedStorage).
void init_serialization(py::module_& m);
// share_memory_/is_shared and the descriptors of shared storages (shared_memory.cpp; after
// init_tensor).
void init_shared_memory(py::module_& m, py::class_<Tensor>& cls);
// CUDA IPC export and import on _C._cuda (cuda_ipc.cpp; after init_cuda).
void init_cuda_ipc(py::module_& m);
// CUDA graphs on _C._cuda (cuda_graph.cpp; after init_cuda).
void init_cuda_graph(py::module_& m);
// genesis._C._autograd's custom Function support (autograd_function.cpp).
void init_autograd_function(py::module_& autograd);
// `result` of a bound call, with a NotImplemented node for floating results that an input
// requiring grad should reach but no formula recorded (python/untracked_results.cpp).
PyObject* track_untracked_results(PyObject* self, PyObject* const* args, size_t nargsf,
                                  PyObject* kwnames, PyObject* result);
void init_pool_testing(py::module_& testing);
// genesis._C._memory_profiler: the recorder and the stack capture (memory_profiler.cpp).
void init_memory_profiler(py::module_& m);
// python/fusion.cpp: genesis.compile's compiled regions, _C._fusion.
void init_fusion(py::module_& m);
// genesis._C._host_heap: the CPU heap's block cache (host_heap.cpp).
void init_host_heap(py::module_& m);
// help(genesis) without "method of ... instance" on every function (Note [pydoc label]).
void hide_pydoc_method_label(py::module_& m, const char* any_function);

}  // namespace genesis::python

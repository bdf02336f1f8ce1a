// What genesis/serialization.py needs from the core to pickle, copy, save and load tensors:
// a storage's identity and bytes, a storage made from bytes, and a tensor laid over a storage
// with every size, stride and offset checked against it (the inputs may come from a file).
#include <cstring>
#include <memory>

#include "core/allocator.h"
#include "core/errors.h"
#include "core/shape.h"
#include "ops/convert.h"
#include "ops/copy.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

Tensor serialized_bytes(const Storage& s) {
  return Tensor(s, {static_cast<int64_t>(s.nbytes())}, {1}, 0, ScalarType::UInt8);
}

// The bytes of a storage, copied to the host (one wait for a CUDA storage).
py::bytes storage_bytes(const Storage& s) {
  Tensor host = serialized_bytes(s);
  if (!s.device().is_cpu()) host = ops::to(host, ScalarType::UInt8, kCPU, false);
  const char* data = static_cast<const char*>(host.storage().data());
  return py::bytes(data, s.nbytes());
}

// A new storage on `device` holding the bytes of a buffer (bytes, bytearray, memoryview, a
// C-contiguous array). The buffer is asked for without strides (PyBUF_SIMPLE), so an exporter
// whose items are not laid out one after another in C order refuses, instead of its bytes being
// read in memory order.
Storage storage_from_bytes(const py::object& data, py::handle device) {
  const char* op = "load";
  GENESIS_CHECK_TYPE(PyObject_CheckBuffer(data.ptr()), op, "expected a bytes-like object, got ",
                     type_name(data));
  Py_buffer view;
  if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) {
    PyErr_Clear();
    GENESIS_CHECK_VALUE(false, op, "expected a C-contiguous buffer of bytes, got a ",
                        type_name(data), " that is not");
  }
  std::unique_ptr<Py_buffer, void (*)(Py_buffer*)> release(&view, PyBuffer_Release);
  size_t n = static_cast<size_t>(view.len);
  Storage host = Storage::allocate(n, kCPU);
  if (n > 0) std::memcpy(host.mutable_data(), view.buf, n);
  Device d = to_device(device, op);
  if (d.is_cpu()) return host;
  return ops::to(serialized_bytes(host), ScalarType::UInt8, d, false).storage();
}

// A buffer's memory, held by its Py_buffer (released with the GIL, on any thread; after
// interpreter shutdown it leaks).
void release_buffer(void*, void* context) {
  auto* view = static_cast<Py_buffer*>(context);
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  PyBuffer_Release(view);
  delete view;
}

// A CPU storage over a C-contiguous buffer's own memory (no copy): load(mmap=True)'s storages
// over a copy-on-write map of the file. Writable when the buffer is.
Storage storage_over_buffer(const py::object& data) {
  const char* op = "load";
  GENESIS_CHECK_TYPE(PyObject_CheckBuffer(data.ptr()), op, "expected a bytes-like object, got ",
                     type_name(data));
  auto view = std::make_unique<Py_buffer>();
  bool writable = PyObject_GetBuffer(data.ptr(), view.get(), PyBUF_WRITABLE) == 0;
  if (!writable) {
    PyErr_Clear();
    if (PyObject_GetBuffer(data.ptr(), view.get(), PyBUF_SIMPLE) != 0) {
      PyErr_Clear();
      GENESIS_CHECK_VALUE(false, op, "expected a C-contiguous buffer of bytes, got a ",
                          type_name(data), " that is not");
    }
  }
  void* ptr = view->buf;
  size_t n = static_cast<size_t>(view->len);
  Py_buffer* raw = view.release();
  return Storage::wrap(DataPtr(ptr, raw, &release_buffer, kCPU), n, writable);
}

// A tensor over `storage`: the layout a file or a pickle describes, refused unless every
// element it can reach lies inside the storage.
Tensor tensor_on_storage(const Storage& storage, int64_t offset, const Shape& sizes,
                         const Shape& strides, py::handle dtype) {
  const char* op = "load";
  ScalarType type = to_dtype(dtype, op);
  GENESIS_CHECK_VALUE(sizes.size() == strides.size(), op, "a tensor of ", sizes.size(),
                      " dims has ", strides.size(), " strides");
  int64_t numel = checked_numel(sizes, op);
  GENESIS_CHECK_VALUE(offset >= 0, op, "negative storage offset ", offset);
  int64_t item = static_cast<int64_t>(itemsize(type));
  int64_t capacity = static_cast<int64_t>(storage.nbytes()) / item;  // whole items
  int64_t last = offset;                                             // the farthest element reached
  if (numel > 0) {
    for (size_t d = 0; d < sizes.size(); ++d) {
      GENESIS_CHECK_VALUE(strides[d] >= 0, op, "negative stride ", strides[d]);
      last = checked_add(last, checked_mul(sizes[d] - 1, strides[d], op), op);
    }
    GENESIS_CHECK_VALUE(last < capacity, op, "a tensor of shape ", shape_str(sizes),
                        " and strides ", shape_str(strides), " at offset ", offset,
                        " needs more than the storage's ", storage.nbytes(), " bytes");
  } else {
    GENESIS_CHECK_VALUE(offset <= capacity, op, "storage offset ", offset,
                        " is past the end of the storage (", capacity, " items)");
  }
  return Tensor(storage, sizes, strides, offset, type);
}

}  // namespace

void init_serialization(py::module_& m) {
  py::class_<Storage> storage =
      py::reinterpret_borrow<py::class_<Storage>>(m.attr("UntypedStorage"));
  storage.def_property_readonly(
      "_cdata", [](const Storage& s) { return s.id(); },
      "The storage's identity (equal for handles of one storage)");
  storage.def("_to_bytes", &storage_bytes, "The storage's bytes, on the host");
  m.def("_storage_from_bytes", &storage_from_bytes, py::arg("data"), py::arg("device"),
        "A storage holding a copy of the buffer's bytes, on device");
  m.def("_storage_over_buffer", &storage_over_buffer, py::arg("data"),
        "A CPU storage over the buffer's memory, without a copy");
  m.def("_tensor_on_storage", &tensor_on_storage, py::arg("storage"), py::arg("offset"),
        py::arg("sizes"), py::arg("strides"), py::arg("dtype"),
        "A tensor laid over the storage, every element checked to lie inside it");
}

}  // namespace genesis::python

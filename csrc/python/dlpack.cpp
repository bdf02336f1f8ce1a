// The DLPack capsule protocol (Python array API): Tensor.__dlpack__, __dlpack_device__ and
// genesis.from_dlpack. Note [DLPack streams]: a producer asked for a consumer stream records an
// event on genesis's current stream and makes the consumer's stream wait on it; a consumer
// passes its current stream to the producer. Nothing waits for the whole device.
#include <optional>

#include "autograd/node.h"
#include "autograd/ops.h"
#include "core/errors.h"
#include "cuda/runtime.h"
#include "cuda/stream.h"
#include "dlpack/convert.h"
#include "ops/convert.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kLegacyUsed = "used_dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kVersionedUsed = "used_dltensor_versioned";

[[noreturn]] void buffer_error(const std::string& message) {
  GENESIS_FAIL(ErrorKind::Buffer, "__dlpack__", message);
}

// The protocol's small arguments, checked: a TypeError naming the op instead of pybind11's cast
// error. `what` names the argument in the message.
std::pair<int, int> int_pair(py::handle obj, const char* op, const char* what) {
  bool ok = (PyTuple_Check(obj.ptr()) || PyList_Check(obj.ptr())) && py::len(obj) == 2;
  if (ok) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
    ok = PyLong_Check(seq[0].ptr()) && PyLong_Check(seq[1].ptr()) && !PyBool_Check(seq[0].ptr()) &&
         !PyBool_Check(seq[1].ptr());
    if (ok) return {seq[0].cast<int>(), seq[1].cast<int>()};
  }
  GENESIS_FAIL(ErrorKind::Type, op, what, " must be a pair of ints, got ",
               py::repr(obj).cast<std::string>());
}

std::optional<bool> optional_bool(py::handle obj, const char* op, const char* what) {
  if (obj.is_none()) return std::nullopt;
  GENESIS_CHECK_TYPE(PyBool_Check(obj.ptr()), op, what, " must be None, True or False, got ",
                     py::repr(obj).cast<std::string>());
  return obj.ptr() == Py_True;
}

// An unconsumed capsule frees what it holds when it is collected.
void delete_unconsumed_legacy(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kLegacyName)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
    if (m && m->deleter) m->deleter(m);
  }
}
void delete_unconsumed_versioned(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
    if (m && m->deleter) m->deleter(m);
  }
}

// Makes the consumer's stream wait for the work genesis queued on the tensor's device.
void sync_for_consumer(const Tensor& t, py::handle stream) {
  int device = t.device().index;
  cuda::StreamId consumer = 1;  // None: the legacy default stream
  if (!stream.is_none()) {
    int64_t s = to_int(stream, "__dlpack__", "stream");
    if (s == -1) return;  // the consumer asked for no synchronization
    if (s == 0) buffer_error("stream 0 is ambiguous and not allowed for CUDA (use 1 or 2)");
    consumer = static_cast<cuda::StreamId>(s);
  }
  cuda::StreamId producer = cuda::current_stream(device);
  // genesis's default stream (0) is the legacy default stream, which consumers name 1.
  if (producer == consumer || (producer == 0 && consumer == 1)) return;
  cuda::EventId e = cuda::create_event(device, false, false);
  cuda::record_event(e, producer, device);
  cuda::stream_wait_event(consumer, e, device);
  cuda::destroy_event(e);  // released once it completes; the wait is already queued
}

py::object dlpack(const Tensor& self, py::handle stream, py::handle max_version,
                  py::handle dl_device, py::handle copy) {
  Tensor t = self;
  bool copied = false;
  std::optional<bool> copy_arg = optional_bool(copy, "__dlpack__", "copy");
  bool may_copy = copy_arg.value_or(true);
  std::optional<std::pair<int, int>> pair;
  if (!dl_device.is_none()) pair = int_pair(dl_device, "__dlpack__", "dl_device");
  // The protocol: a consumer of CPU memory passes stream=None (host memory has no streams).
  bool to_cpu = pair ? pair->first == kDLCPU : t.device().is_cpu();
  if (to_cpu && !stream.is_none())
    buffer_error("stream must be None when exporting to the CPU, got " +
                 py::repr(stream).cast<std::string>());
  if (pair) {
    Device target;
    if (pair->first == kDLCPU)
      target = kCPU;
    else if (pair->first == kDLCUDA)
      target = dlpack::from_dl_device({kDLCUDA, pair->second});
    else
      buffer_error("cannot export to DLPack device type " + std::to_string(pair->first));
    if (target != t.device()) {
      if (!may_copy) buffer_error("exporting to another device needs a copy, but copy=False");
      if (t.is_cuda()) sync_for_consumer(t, py::none());
      t = ag::copy_to(t, t.dtype(), target);
      copied = true;
    }
  }
  bool versioned = false;
  if (!max_version.is_none()) {
    auto v = int_pair(max_version, "__dlpack__", "max_version");
    versioned = v.first >= 1;
  }
  if (copy_arg.value_or(false) && !copied) {
    t = ag::clone(t);
    copied = true;
  }
  // Note [Read-only storages]: a legacy capsule cannot say read-only, so it gets a copy. A
  // tensor that requires grad or whose memory is saved for backward is exported read-only too
  // (Note [Exports of saved tensors]).
  bool read_only = !copied && autograd::export_read_only(t);
  if (read_only && !versioned) {
    if (!may_copy)
      buffer_error(
          t.is_writable()
              ? "the tensor requires grad or is saved for backward, so it is exported "
                "read-only, which a legacy DLPack capsule cannot express; pass "
                "max_version=(1, 0), allow a copy, or export t.detach().clone()"
              : "the tensor is read-only, which a legacy DLPack capsule cannot express; pass "
                "max_version=(1, 0) or allow a copy");
    t = ag::clone(t);
    copied = true;
    read_only = false;
  }
  if (t.is_cuda()) sync_for_consumer(t, stream);  // CPU memory has no streams to order
  if (versioned) {
    uint64_t flags = (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0) |
                     (read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0);
    DLManagedTensorVersioned* m = dlpack::export_versioned(t, flags);
    return py::reinterpret_steal<py::object>(
        PyCapsule_New(m, kVersionedName, &delete_unconsumed_versioned));
  }
  DLManagedTensor* m = dlpack::export_legacy(t);
  return py::reinterpret_steal<py::object>(
      PyCapsule_New(m, kLegacyName, &delete_unconsumed_legacy));
}

// Frees the producer's memory when genesis's last view of it goes; may run on any thread, so it
// takes the GIL (producers' deleters may touch Python objects) and does nothing once the
// interpreter is gone.
template <typename Managed>
void release_managed(void*, void* owner) {
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  auto* m = static_cast<Managed*>(owner);
  if (m->deleter) m->deleter(m);
}

// A capsule genesis exported gives back the exported view of its storage (Note [Round trips
// through DLPack] in dlpack/convert.cpp), unless it says read-only over a writable storage: then
// it is wrapped, so the tensor made from it stays read-only. The capsule is consumed either way.
template <typename Managed>
std::optional<Tensor> take_back(py::handle capsule, Managed* m, bool read_only, const char* used) {
  const Tensor* exported = dlpack::exported_tensor(m);
  if (exported == nullptr || (read_only && exported->is_writable())) return std::nullopt;
  const Tensor& e = *exported;
  Tensor t(e.storage(), e.sizes(), e.strides(), e.storage_offset(), e.dtype());
  PyCapsule_SetName(capsule.ptr(), used);
  m->deleter(m);
  return t;
}

Tensor consume_capsule(py::handle capsule) {
  PyObject* c = capsule.ptr();
  if (PyCapsule_IsValid(c, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, kVersionedName));
    GENESIS_CHECK_KIND_(ErrorKind::Buffer, m->version.major <= 1, "from_dlpack",
                        "DLPack major version ", m->version.major,
                        " is not supported (genesis "
                        "reads 1.x)");
    // A read-only export stays shared, as a read-only tensor (Note [Read-only storages]).
    bool read_only = m->flags & DLPACK_FLAG_BITMASK_READ_ONLY;
    if (auto back = take_back(capsule, m, read_only, kVersionedUsed)) return *back;
    Tensor t =
        dlpack::import(m->dl_tensor, m, &release_managed<DLManagedTensorVersioned>, !read_only);
    PyCapsule_SetName(c, kVersionedUsed);  // only after validation: the tensor owns it now
    return t;
  }
  if (PyCapsule_IsValid(c, kLegacyName)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, kLegacyName));
    if (auto back = take_back(capsule, m, false, kLegacyUsed)) return *back;
    Tensor t = dlpack::import(m->dl_tensor, m, &release_managed<DLManagedTensor>);
    PyCapsule_SetName(c, kLegacyUsed);
    return t;
  }
  if (PyCapsule_IsValid(c, kLegacyUsed) || PyCapsule_IsValid(c, kVersionedUsed))
    GENESIS_FAIL(ErrorKind::Buffer, "from_dlpack", "this DLPack capsule was already consumed");
  GENESIS_FAIL(ErrorKind::Buffer, "from_dlpack",
               "not a DLPack capsule (expected a capsule named "
               "'dltensor' or 'dltensor_versioned')");
}

// Makes a CUDA device current for a scope, and the previous one current again after it.
// Note [Asking a producer on its own device]: a stream handle means something only on its
// device, so a producer on cuda:1 is asked for its capsule with cuda:1 current; PyTorch refuses
// to export otherwise ("Can't export tensors on a different CUDA device index").
class CurrentDeviceScope {
 public:
  explicit CurrentDeviceScope(int index) : previous_(cuda::current_device()) {
    if (index != previous_) cuda::set_device(index);
  }
  ~CurrentDeviceScope() {
    try {
      if (cuda::current_device() != previous_) cuda::set_device(previous_);
    } catch (...) {  // a destructor must not throw; the device stays as the producer left it
    }
  }
  CurrentDeviceScope(const CurrentDeviceScope&) = delete;
  CurrentDeviceScope& operator=(const CurrentDeviceScope&) = delete;

 private:
  int previous_;
};

// Asks the producer for a capsule: versioned first, legacy when it does not take max_version.
py::object request_capsule(py::handle obj, py::handle device, py::handle copy) {
  auto [type, index] =
      int_pair(obj.attr("__dlpack_device__")(), "from_dlpack", "__dlpack_device__()'s result");
  py::object stream = py::none();
  std::optional<CurrentDeviceScope> on_producer_device;
  if (type == kDLCUDA) {
    // Our current stream on that device; the legacy default stream is 1 (0 is not allowed).
    Device d = dlpack::from_dl_device({kDLCUDA, index});  // BufferError without that device
    cuda::StreamId s = cuda::current_stream(d.index);
    stream = py::int_(s == 0 ? 1 : s);
    on_producer_device.emplace(d.index);
  }
  py::dict kwargs;
  kwargs["stream"] = stream;
  kwargs["max_version"] =
      py::make_tuple(GENESIS_DLPACK_MAJOR_VERSION, GENESIS_DLPACK_MINOR_VERSION);
  if (!copy.is_none()) kwargs["copy"] = copy;
  try {
    return obj.attr("__dlpack__")(**kwargs);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
  }
  // A producer that predates DLPack 1.0 takes only the stream.
  return obj.attr("__dlpack__")(py::arg("stream") = stream);
}

}  // namespace

void init_dlpack(py::module_& m, py::class_<Tensor>& cls) {
  cls.def("__dlpack__", &dlpack, py::kw_only(), py::arg("stream") = py::none(),
          py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
          py::arg("copy") = py::none())
      .def("__dlpack_device__", [](const Tensor& t) {
        DLDevice d = dlpack::to_dl_device(t.device());
        return py::make_tuple(static_cast<int>(d.device_type), d.device_id);
      });
  m.def(
      "from_dlpack",
      [](py::handle obj, py::handle device, py::handle copy) {
        Tensor t;
        std::optional<bool> copy_arg = optional_bool(copy, "from_dlpack", "copy");
        bool must_copy = copy_arg.value_or(false);
        bool no_copy = !copy_arg.value_or(true);
        if (PyCapsule_CheckExact(obj.ptr())) {
          t = consume_capsule(obj);
        } else {
          GENESIS_CHECK_TYPE(py::hasattr(obj, "__dlpack__"), "from_dlpack",
                             "expected an object with __dlpack__ or a DLPack capsule, got ",
                             type_name(obj));
          t = consume_capsule(request_capsule(obj, device, copy));
        }
        if (!device.is_none()) {
          Device target = to_device(device, "from_dlpack");
          if (target != t.device()) {
            GENESIS_CHECK_KIND_(ErrorKind::Buffer, !no_copy, "from_dlpack", "moving to ",
                                target.str(), " needs a copy, but copy=False");
            return ag::copy_to(t, t.dtype(), target);
          }
        }
        return must_copy ? ag::clone(t) : t;
      },
      py::arg("obj"), py::kw_only(), py::arg("device") = py::none(), py::arg("copy") = py::none());
}

}  // namespace genesis::python

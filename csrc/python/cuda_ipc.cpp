// CUDA IPC for the multiprocessing pickler (genesis/multiprocessing/reductions.py; Note [CUDA
// storages between processes] in cuda/ipc.cpp), on genesis._C._cuda.
#include "cuda/ipc.h"
#include "python/bindings.h"

namespace genesis::python {

void init_cuda_ipc(py::module_& m) {
  py::module_ c = m.attr("_cuda");
  c.def(
      "_ipc_export",
      [](const Storage& s) {
        cuda::IpcExport e = cuda::export_storage(s);
        return py::make_tuple(py::bytes(e.memory), e.offset, py::bytes(e.event), e.event_id);
      },
      py::arg("storage"),
      "(memory handle, offset, event handle, event id) of a CUDA storage, the event recorded "
      "on its device's current stream");
  c.def("_ipc_destroy_event", &cuda::destroy_exported_event, py::arg("event_id"),
        "Destroys an exported event");
  c.def(
      "_ipc_import",
      [](const py::bytes& memory, int64_t offset, size_t nbytes, int device, const py::bytes& event,
         const Storage& counter) {
        return cuda::import_storage(std::string(memory), offset, nbytes, device, std::string(event),
                                    counter);
      },
      py::arg("memory"), py::arg("offset"), py::arg("nbytes"), py::arg("device"), py::arg("event"),
      py::arg("counter"),
      "The storage over another process's CUDA memory (Note [CUDA storages between processes])");
}

}  // namespace genesis::python

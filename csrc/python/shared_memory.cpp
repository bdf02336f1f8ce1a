// Shared memory for the multiprocessing pickler (genesis/multiprocessing/reductions.py) and for
// share_memory_()/is_shared() on tensors and storages (Note [Shared memory storages] in
// cpu/shared_memory.cpp).
#include "cpu/shared_memory.h"
#include "python/bindings.h"

namespace genesis::python {

namespace {

// torch's meaning: memory another process can use without a copy; CUDA memory always is (IPC).
bool storage_is_shared(const Storage& s) {
  return s.device().is_cuda() || cpu::in_shared_memory(s);
}

}  // namespace

void init_shared_memory(py::module_& m, py::class_<Tensor>& cls) {
  py::class_<Storage> storage =
      py::reinterpret_borrow<py::class_<Storage>>(m.attr("UntypedStorage"));
  storage.def("share_memory_", [](const Storage& s) {
    cpu::share_memory_(s);
    return s;
  });
  storage.def("is_shared", &storage_is_shared);
  storage.def(
      "_share_fd_cpu_",
      [](const Storage& s) {
        cpu::share_memory_(s);
        return py::make_tuple(cpu::share_fd(s), s.nbytes());
      },
      "Moves the storage into shared memory and returns (its descriptor, nbytes); the "
      "descriptor stays the storage's");
  m.def(
      "_storage_from_share_fd",
      [](int fd, size_t nbytes) { return cpu::storage_from_share_fd(fd, nbytes); }, py::arg("fd"),
      py::arg("nbytes"),
      "The CPU storage over the shared memory behind fd (mapped once per process); fd stays "
      "the caller's");
  cls.def("share_memory_", [](py::object self) {
    cpu::share_memory_(self.cast<const Tensor&>().storage());
    return self;
  });
  cls.def("is_shared", [](const Tensor& t) { return storage_is_shared(t.storage()); });
}

}  // namespace genesis::python

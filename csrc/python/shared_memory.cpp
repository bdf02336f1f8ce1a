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
  storage.def(
      "share_memory_",
      [](const Storage& s) {
        cpu::share_memory_(s);
        return s;
      },
      R"doc(Moves a CPU storage's bytes into shared memory, in place (CUDA storages need no move).

Every tensor over the storage keeps its values and now reads and writes the shared pages, which
another process can map without a copy (``multiprocessing`` queues and workers do this).

Returns:
    The storage.

Example::

    >>> import genesis
    >>> s = genesis.ones(2).untyped_storage()
    >>> s.share_memory_().is_shared()
    True
)doc");
  storage.def("is_shared", &storage_is_shared,
              R"doc(Whether another process can use the storage's memory without a copy.

Returns:
    True for a CPU storage in shared memory and for every CUDA storage.

Example::

    >>> import genesis
    >>> genesis.ones(2).untyped_storage().is_shared()
    False
)doc");
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
  cls.def(
      "share_memory_",
      [](py::object self) {
        cpu::share_memory_(self.cast<const Tensor&>().storage());
        return self;
      },
      R"doc(Moves the tensor's storage into shared memory, in place (nothing for CUDA tensors).

The values stay; the tensor, and every view of its storage, now reads and writes shared pages
that another process maps without a copy: a tensor sent through a ``multiprocessing`` queue or
to a worker arrives as the same memory, and writes on either side are seen by the other. Do not
call it while another thread computes with the tensor.

Returns:
    The tensor itself.

Example::

    >>> import genesis
    >>> x = genesis.arange(3.0)
    >>> x.is_shared(), x.share_memory_().is_shared(), x.tolist()
    (False, True, [0.0, 1.0, 2.0])
)doc");
  cls.def(
      "is_shared", [](const Tensor& t) { return storage_is_shared(t.storage()); },
      R"doc(Whether another process can use the tensor's memory without a copy.

Returns:
    True for a CPU tensor whose storage is in shared memory (after ``share_memory_()``, or
    received from another process), and for every CUDA tensor.

Example::

    >>> import genesis
    >>> genesis.zeros(2).is_shared()
    False
)doc");
}

}  // namespace genesis::python

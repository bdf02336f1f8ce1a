"""Docstrings of sharing memory between processes (csrc/python/shared_memory.cpp)."""

DOCS = {
    "UntypedStorage.share_memory_": """\
Moves a CPU storage's bytes into shared memory, in place (CUDA storages need no move).

Every tensor over the storage keeps its values and now reads and writes the shared pages, which
another process can map without a copy (``multiprocessing`` queues and workers do this).

Returns:
    The storage.

Example::

    >>> import genesis
    >>> s = genesis.ones(2).untyped_storage()
    >>> s.share_memory_().is_shared()
    True
""",
    "UntypedStorage.is_shared": """\
Whether another process can use the storage's memory without a copy.

Returns:
    True for a CPU storage in shared memory and for every CUDA storage.

Example::

    >>> import genesis
    >>> genesis.ones(2).untyped_storage().is_shared()
    False
""",
    "Tensor.share_memory_": """\
Moves the tensor's storage into shared memory, in place (nothing for CUDA tensors).

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
""",
    "Tensor.is_shared": """\
Whether another process can use the tensor's memory without a copy.

Returns:
    True for a CPU tensor whose storage is in shared memory (after ``share_memory_()``, or
    received from another process), and for every CUDA tensor.

Example::

    >>> import genesis
    >>> genesis.zeros(2).is_shared()
    False
""",
}

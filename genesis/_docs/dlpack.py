"""Docstrings of the DLPack exchange (csrc/python/dlpack.cpp): Tensor.__dlpack__, __dlpack_device__
and genesis.from_dlpack.
"""

DOCS = {
    "Tensor.__dlpack__": """\
Exports the tensor as a DLPack capsule (the Python array API's ``__dlpack__`` protocol).

Consumers (``numpy.from_dlpack``, ``torch.from_dlpack``, ``genesis.from_dlpack`` ...) call it;
the capsule shares the tensor's memory, any strides included. With ``max_version`` of 1.0 or
more the capsule is a versioned one (``"dltensor_versioned"``), else a legacy
``"dltensor"``. For CUDA tensors, ``stream`` names the consumer's stream, which is made to wait
for the work genesis queued (an event, never a device-wide synchronize); ``-1`` skips that and
``0`` is refused. A read-only tensor (``is_writable`` False) is exported with the versioned
capsule's read-only flag; a legacy capsule cannot carry it, so it holds a copy (BufferError under
``copy=False``). What cannot be exported raises BufferError.

Args:
    stream (int, optional): keyword-only: the consumer's CUDA stream (1: the legacy default
        stream, 2: per-thread default). Default: None (the legacy default stream).
    max_version (tuple of 2 ints, optional): keyword-only: the newest DLPack version the
        consumer reads. Default: None (a legacy capsule).
    dl_device (tuple of 2 ints, optional): keyword-only: ``(device_type, device_id)`` to export
        to; ``(1, 0)`` copies a CUDA tensor to the host. Default: None (the tensor's device).
    copy (bool, optional): keyword-only: True to always copy (the capsule is marked as a copy),
        False to refuse copying. Default: None (copy only when needed).

Returns:
    PyCapsule: the DLPack capsule, to be consumed once.

Example::

    >>> x = genesis.arange(6.0).view(2, 3)
    >>> cap = x.__dlpack__(max_version=(1, 0))
    >>> genesis.from_dlpack(cap).data_ptr() == x.data_ptr()
    True
    >>> np.from_dlpack(x[:, ::2])
    array([[0., 2.],
           [3., 5.]], dtype=float32)
""",
    "Tensor.__dlpack_device__": """\
Returns the tensor's DLPack ``(device_type, device_id)``: ``(1, 0)`` CPU, ``(2, i)`` CUDA.

Example::

    >>> genesis.zeros(2).__dlpack_device__()
    (1, 0)
""",
    "from_dlpack": """\
Returns a tensor that shares the memory of a DLPack producer (or a DLPack capsule).

``obj`` is an object with ``__dlpack__`` and ``__dlpack_device__`` (a NumPy array, a PyTorch,
CuPy or JAX tensor, a genesis tensor) or a capsule made by one. genesis asks for a versioned
(1.x) capsule first and falls back to a legacy one; for CUDA producers it passes its current
stream, so the producer's work is ordered before genesis's. A capsule flagged read-only (a
read-only NumPy array's) gives a read-only tensor that shares the memory (see
``Tensor.is_writable``); ``copy=True`` gives a writable copy. Errors (unknown dtypes or devices,
DLPack major versions above 1, a capsule consumed twice) raise BufferError.

Args:
    obj: a DLPack producer or capsule.
    device (genesis.device, str or int, optional): keyword-only: the device wanted; another
        device than the producer's means a copy. Default: None (the producer's).
    copy (bool, optional): keyword-only: True to always copy, False to refuse copying.
        Default: None (share when possible).

Returns:
    Tensor: a tensor viewing (or holding a copy of) the producer's memory.

Example::

    >>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> t = genesis.from_dlpack(a)
    >>> t[0, 0] = 10.0
    >>> float(a[0, 0])
    10.0
    >>> genesis.from_dlpack(a, copy=True).data_ptr() != t.data_ptr()
    True
""",
}

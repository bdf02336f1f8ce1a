"""Docstrings of the NumPy exchange (csrc/python/numpy.cpp): Tensor.numpy, __array__ and
genesis.from_numpy.
"""

DOCS = {
    "Tensor.numpy": """\
Returns a NumPy array that shares this CPU tensor's memory.

Writes through either show in the other; the array keeps the memory alive. NumPy's strides
are in bytes. A CUDA tensor or a bfloat16 one (NumPy has no bfloat16) is a TypeError unless
``force=True``: then a CUDA tensor is copied to the host and bfloat16 to float32 (the array
shares nothing with the tensor), while other CPU tensors are still shared. A read-only tensor
(``is_writable`` False) gives a read-only array, and so does a tensor that requires grad or
whose memory autograd has saved for backward (a write through the array would change what
backward computes; ``t.detach().numpy()`` of a tensor that requires grad is writable).

Args:
    force (bool): keyword-only: copy CUDA and bfloat16 tensors instead of refusing them.
        Default: False.

Returns:
    numpy.ndarray: an array with the tensor's shape and dtype.

Example::

    >>> x = genesis.zeros(2, 3)
    >>> a = x.numpy()
    >>> a[0, 0] = 42
    >>> x[0, 0].item(), a.strides
    (42.0, (12, 4))
    >>> genesis.ones(2, dtype=genesis.bfloat16).numpy(force=True).dtype
    dtype('float32')
""",
    "Tensor.__array__": """\
np.asarray(x): a NumPy array sharing a CPU tensor's memory (the ``__array__`` protocol).

With ``dtype``, a converted copy; ``copy=True`` always copies and ``copy=False`` raises
ValueError when a conversion would need a copy (NumPy 2's rules). CUDA and bfloat16 tensors are
a TypeError, as in ``numpy()``.

Args:
    dtype (numpy.dtype, optional): the dtype of the array. Default: None (the tensor's).
    copy (bool, optional): True to copy, False to refuse copying. Default: None (copy only when
        needed).

Returns:
    numpy.ndarray: the array.

Example::

    >>> x = genesis.arange(3)
    >>> np.asarray(x)
    array([0, 1, 2])
    >>> np.asarray(x, dtype=np.float64)
    array([0., 1., 2.])
""",
    "from_numpy": """\
Returns a CPU tensor that shares the memory of NumPy array ``ndarray``.

Writes through either show in the other; the tensor keeps the array alive. The dtype is the
array's (bool, uint8, int8, int16, int32, int64, float16, float32 or float64; others are a
TypeError), and any strides work, negative ones too, as long as they are whole multiples of the
item size. Non-native byte order is refused. ``genesis.tensor(ndarray)`` copies instead. A
read-only array (``writeable`` flag off: ``np.frombuffer`` of ``bytes``, a ``np.memmap`` with
``mode='r'``) gives a read-only tensor: writing it raises ValueError (see ``Tensor.is_writable``).

Args:
    ndarray (numpy.ndarray): the array to share.

Returns:
    Tensor: a CPU tensor viewing the array's memory.

Example::

    >>> a = np.zeros(3)
    >>> t = genesis.from_numpy(a)
    >>> a[0] = 5.0
    >>> t
    tensor([5., 0., 0.], dtype=genesis.float64)
    >>> genesis.from_numpy(np.arange(6).reshape(2, 3)[:, ::-1]).stride()
    (3, -1)
""",
}

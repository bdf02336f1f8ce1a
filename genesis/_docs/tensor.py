"""Docstrings of genesis.Tensor (the class, its attributes and views) and genesis.UntypedStorage
(csrc/python/module.cpp, tensor.cpp). tests/project/test_docstrings.py runs their examples.
"""

from ._fragments import function_form

SIZE = """\
Returns the shape of the tensor, or the size of one dimension.

``size()`` is the same tuple as ``shape``; ``size(dim)`` is one int.

Args:
    dim (int): the dimension; negative values count from the end. When left out, the sizes of
        all dimensions are returned.

Returns:
    tuple of int, or int: the sizes, or the size of ``dim``.

Example::

    >>> x = genesis.zeros(2, 3, 4)
    >>> x.size()
    genesis.Size([2, 3, 4])
    >>> x.size(-1)
    4
"""

STRIDE = """\
Returns the strides of the tensor (in elements), or the stride of one dimension.

A stride is how many elements of the storage lie between two neighbours along a dimension:
element ``x[i, j]`` is at ``storage_offset() + i * stride(0) + j * stride(1)``. Strides may be 0
(``expand``) or negative (a negative slice step).

Args:
    dim (int): the dimension; negative values count from the end. When left out, the strides
        of all dimensions are returned.

Returns:
    tuple of int, or int: the strides, or the stride of ``dim``.

Example::

    >>> x = genesis.zeros(2, 3, 4)
    >>> x.stride()
    (12, 4, 1)
    >>> x.stride(0)
    12
    >>> x.transpose(0, 2).stride()
    (1, 4, 12)
"""

RESHAPE = """\
Returns the tensor's elements in a new shape: a view when possible, else a copy.

When the tensor's strides can express the new shape, the result is a view, as with ``view``;
otherwise it is a new contiguous tensor holding a copy. Code that writes to the result should
not rely on either.

Args:
    *shape (int): the new sizes, as separate ints or one tuple or list. One of them may be
        ``-1``: it is inferred from the others.

Returns:
    Tensor: the reshaped tensor (a view or a copy).

Example::

    >>> x = genesis.arange(6).view(2, 3)
    >>> x.reshape(3, 2)
    tensor([[0, 1],
            [2, 3],
            [4, 5]])
    >>> x.t().reshape(-1)  # not expressible as a view: copied
    tensor([0, 3, 1, 4, 2, 5])
"""

TRANSPOSE = """\
Returns a view of the tensor with dimensions ``dim0`` and ``dim1`` swapped.

Only the sizes and strides change; the elements are not moved, so the result is usually not
contiguous.

Args:
    dim0 (int): the first dimension; negative values count from the end.
    dim1 (int): the second dimension.

Returns:
    Tensor: a view with the two dimensions swapped.

Example::

    >>> x = genesis.arange(6).view(2, 3)
    >>> x.transpose(0, 1)
    tensor([[0, 3],
            [1, 4],
            [2, 5]])
    >>> genesis.zeros(2, 3, 4).transpose(0, -1).shape
    genesis.Size([4, 3, 2])
"""

PERMUTE = """\
Returns a view of the tensor with its dimensions reordered.

Dimension ``i`` of the result is dimension ``dims[i]`` of the tensor. Every dimension must
appear once (a repeated one is a ValueError).

Args:
    *dims (int): the new order, as separate ints or one tuple or list; negative values count
        from the end.

Returns:
    Tensor: a view with the dimensions permuted.

Example::

    >>> x = genesis.zeros(2, 3, 4)
    >>> x.permute(2, 0, 1).shape
    genesis.Size([4, 2, 3])
    >>> x.permute((2, 0, 1)).stride()
    (1, 12, 4)
"""

T = """\
Returns the transpose of a tensor of at most 2 dimensions: ``transpose(0, 1)``.

0-d and 1-d tensors come back as they are (a view); more than 2 dimensions is an error, as in
PyTorch (use ``transpose``, ``permute`` or ``mT``).

Returns:
    Tensor: a transposed view.

Example::

    >>> genesis.tensor([[1, 2, 3]]).t()
    tensor([[1],
            [2],
            [3]])
"""

FLATTEN = """\
Returns the tensor with dimensions ``start_dim`` to ``end_dim`` merged into one.

Like ``reshape``, the result is a view when the strides allow it and a contiguous copy
otherwise. A 0-d tensor becomes a 1-d tensor with one element.

Args:
    start_dim (int): the first dimension to merge. Default: 0.
    end_dim (int): the last dimension to merge (included). Default: -1.

Returns:
    Tensor: the flattened tensor.

Example::

    >>> x = genesis.arange(8).view(2, 2, 2)
    >>> x.flatten()
    tensor([0, 1, 2, 3, 4, 5, 6, 7])
    >>> x.flatten(1).shape
    genesis.Size([2, 4])
"""

SQUEEZE = """\
Returns a view of the tensor with dimensions of size 1 removed.

Without ``dim``, every size-1 dimension goes. With ``dim``, only the named dimensions go, and
only those of size 1: naming a dimension of another size leaves it in place, as in PyTorch.

Args:
    dim (int or tuple of ints, optional): the dimension(s) to remove. Default: None (all
        size-1 dimensions).

Returns:
    Tensor: a view without the squeezed dimensions.

Example::

    >>> x = genesis.zeros(1, 3, 1)
    >>> x.squeeze().shape
    genesis.Size([3])
    >>> x.squeeze(0).shape, x.squeeze((0, 2)).shape, x.squeeze(1).shape
    (genesis.Size([3, 1]), genesis.Size([3]), genesis.Size([1, 3, 1]))
"""

UNSQUEEZE = """\
Returns a view of the tensor with a dimension of size 1 inserted at ``dim``.

Args:
    dim (int): where the new dimension goes, from ``-(ndim + 1)`` to ``ndim``; negative
        values count from the end of the result.

Returns:
    Tensor: a view with one more dimension.

Example::

    >>> x = genesis.tensor([1, 2, 3])
    >>> x.unsqueeze(0)
    tensor([[1, 2, 3]])
    >>> x.unsqueeze(-1).shape
    genesis.Size([3, 1])
"""

NARROW = """\
Returns a view of ``length`` elements of dimension ``dim``, starting at ``start``.

The same as slicing ``start:start + length`` along ``dim``.

Args:
    dim (int): the dimension to narrow; negative values count from the end.
    start (int): the first index kept; negative values count from the end of ``dim``.
    length (int): how many indices to keep; ``start + length`` must not pass the end.

Returns:
    Tensor: a view with ``size(dim) == length``.

Example::

    >>> x = genesis.arange(12).view(3, 4)
    >>> x.narrow(1, 1, 2)
    tensor([[ 1,  2],
            [ 5,  6],
            [ 9, 10]])
"""

SELECT = """\
Returns a view of the slice at ``index`` along ``dim``; that dimension is removed.

``x.select(0, i)`` is ``x[i]``; ``x.select(1, i)`` is ``x[:, i]``.

Args:
    dim (int): the dimension to index; negative values count from the end.
    index (int): the index along ``dim``; negative values count from the end.

Returns:
    Tensor: a view with one dimension less.

Example::

    >>> x = genesis.arange(6).view(2, 3)
    >>> x.select(1, -1)
    tensor([2, 5])
"""

DOCS = {
    "Tensor": """\
A multi-dimensional array of one dtype on one device (the CPU or a CUDA GPU).

A tensor is a strided view of a storage, as in PyTorch: ``shape``, ``stride()``,
``storage_offset()`` and ``dtype`` say which bytes of ``untyped_storage()`` hold its elements
(strides and offsets count elements, not bytes). Views (``view``, ``transpose``, basic
indexing ...) share the storage, so writes through one show in the others.

Tensors are made by the factory functions (``genesis.tensor``, ``zeros``, ``arange``,
``rand`` ...), by operations on other tensors, and from NumPy arrays or DLPack producers
(``from_numpy``, ``from_dlpack``). Unlike ``torch.Tensor``, the class itself cannot be called
to make one. The API follows PyTorch's; where genesis differs, the method's docstring says so.
Operators (``+``, ``@``, ``<``, ``x[key]`` ...) work as in PyTorch, with NumPy's indexing rules.
There is no autograd, and tensors cannot be pickled (use ``clone()`` to copy one).

Example::

    >>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x
    tensor([[1., 2.],
            [3., 4.]])
    >>> x.shape, x.dtype, x.device
    (genesis.Size([2, 2]), genesis.float32, device(type='cpu'))
    >>> (x @ x.T + 1).sum(dim=1)
    tensor([18., 38.])
    >>> isinstance(x, genesis.Tensor)
    True
""",
    "Tensor.shape": """\
The sizes of the tensor's dimensions, as a tuple of ints.

A plain ``tuple`` (PyTorch returns a ``torch.Size``, a tuple subclass). The same as ``size()``.

Example::

    >>> genesis.zeros(2, 3).shape
    genesis.Size([2, 3])
    >>> genesis.tensor(5).shape
    genesis.Size([])
""",
    "Tensor.strides": """\
The strides of the tensor, in elements, as a tuple of ints.

The same tuple as ``stride()``. Unlike NumPy's ``ndarray.strides``, which counts bytes,
genesis strides count elements, as PyTorch's ``stride()`` does.

Example::

    >>> genesis.zeros(2, 3, dtype=genesis.float64).strides
    (3, 1)
""",
    "Tensor.dtype": """\
The data type of the tensor's elements, a ``genesis.dtype`` such as ``genesis.float32``.

Each dtype is a single object, so it can be compared with ``is``.

Example::

    >>> genesis.zeros(2).dtype
    genesis.float32
    >>> genesis.tensor([1, 2]).dtype is genesis.int64
    True
""",
    "Tensor.device": """\
The device the tensor's memory is on, a ``genesis.device``.

A CUDA tensor's device always has an index (``cuda:0`` ...).

Example::

    >>> genesis.zeros(2).device
    device(type='cpu')
""",
    "Tensor.ndim": """\
The number of dimensions of the tensor (0 for a scalar tensor). The same as ``dim()``.

Example::

    >>> genesis.zeros(2, 3).ndim
    2
    >>> genesis.tensor(1.5).ndim
    0
""",
    "Tensor.dim": """\
Returns the number of dimensions of the tensor (the same as ``ndim``).

Returns:
    int: the number of dimensions; 0 for a 0-d (scalar) tensor.

Example::

    >>> genesis.zeros(2, 3, 4).dim()
    3
""",
    "Tensor.numel": """\
Returns the number of elements of the tensor: the product of its sizes.

Returns:
    int: the element count (1 for a 0-d tensor, 0 when any size is 0).

Example::

    >>> genesis.zeros(2, 3).numel()
    6
    >>> genesis.zeros(2, 0).numel()
    0
""",
    "Tensor.itemsize": """\
The size of one element in bytes (4 for float32). The same as ``element_size()``.

Example::

    >>> genesis.zeros(2, dtype=genesis.float16).itemsize
    2
""",
    "Tensor.element_size": """\
Returns the size of one element in bytes (the same as ``itemsize``).

Returns:
    int: 1, 2, 4 or 8, depending on the dtype.

Example::

    >>> genesis.zeros(2, dtype=genesis.int64).element_size()
    8
""",
    "Tensor.nbytes": """\
The number of bytes the tensor's elements take: ``numel() * itemsize``.

This counts the tensor's own elements, not its storage: a view of part of a storage has fewer
bytes than ``untyped_storage().nbytes()``.

Example::

    >>> x = genesis.zeros(4, 3)
    >>> x.nbytes, x[0].nbytes
    (48, 12)
""",
    "Tensor.is_contiguous": """\
Returns True when the tensor's elements lie in row-major order without gaps.

Strides of size-1 dimensions do not matter, and a tensor without elements is always
contiguous, as in PyTorch and NumPy. ``contiguous()`` gives a contiguous tensor. With
``memory_format=genesis.channels_last`` (or ``channels_last_3d``) the question is whether the
tensor is laid out with its channels innermost (Note [Memory formats]).

Args:
    memory_format (genesis.memory_format, optional): the layout to test. Default: None
        (row-major).

Returns:
    bool: whether the tensor is contiguous in that layout.

Example::

    >>> x = genesis.zeros(3, 4)
    >>> x.is_contiguous(), x.t().is_contiguous(), x[:, ::2].is_contiguous()
    (True, False, False)
""",
    "Tensor.storage_offset": """\
Returns where the tensor's first element lies in its storage, in elements.

Returns:
    int: the offset of element ``[0, ..., 0]`` from the start of ``untyped_storage()``,
    counted in elements of the tensor's dtype.

Example::

    >>> x = genesis.arange(12).view(3, 4)
    >>> x[1].storage_offset()
    4
    >>> x[1:, 2].storage_offset()
    6
""",
    "Tensor.data_ptr": """\
Returns the address of the tensor's first element, as an int.

For a CPU tensor it is a host address, for a CUDA tensor a device address. Handing the
address out marks the memory as visible to outside code, so genesis stops trusting its cached
CUDA index checks for it (see the user guide's Indexing section).

Returns:
    int: the address of element ``[0, ..., 0]`` (``untyped_storage().data_ptr()`` plus
    ``storage_offset() * itemsize``).

Example::

    >>> x = genesis.zeros(3, 4)
    >>> x[1].data_ptr() - x.data_ptr()
    16
""",
    "Tensor.is_cuda": """\
True when the tensor's memory is on a CUDA GPU.

Example::

    >>> genesis.zeros(2).is_cuda
    False
""",
    "Tensor.is_writable": """\
False when the tensor views a read-only buffer, which genesis refuses to write.

Tensors made from a read-only NumPy array (``np.frombuffer`` of ``bytes``, a ``np.memmap``
opened with ``mode='r'``, an array whose ``writeable`` flag is off) or from a DLPack capsule
flagged read-only share that memory read-only: every write (``fill_``, ``copy_``, ``x[k] = v``,
``add_``, ``+=`` ...) raises ValueError, and their views are read-only too. Ops that make new
memory (``clone()``, arithmetic, ``to()`` with a change) give writable tensors.

Example::

    >>> t = genesis.from_numpy(np.frombuffer(bytes(8), dtype=np.float32))
    >>> t.is_writable, t[1:].is_writable, t.clone().is_writable
    (False, False, True)
""",
    "Tensor.is_cpu": """\
True when the tensor's memory is on the host (the CPU).

Example::

    >>> genesis.zeros(2).is_cpu
    True
""",
    "Tensor.is_floating_point": """\
Returns True when the tensor's dtype is a floating point type.

The floating point dtypes are float16, bfloat16, float32 and float64.

Returns:
    bool: whether ``dtype.is_floating_point``.

Example::

    >>> genesis.zeros(2).is_floating_point(), genesis.arange(2).is_floating_point()
    (True, False)
""",
    "Tensor.untyped_storage": """\
Returns the storage behind the tensor: its memory, as a ``genesis.UntypedStorage``.

Every view of the tensor returns a handle on the same memory.

Returns:
    UntypedStorage: a handle that keeps the memory alive.

Example::

    >>> x = genesis.zeros(3, 4)
    >>> s = x.untyped_storage()
    >>> s.nbytes(), x[1].untyped_storage().data_ptr() == s.data_ptr()
    (48, True)
""",
    "Tensor.__len__": "len(x): the size of the first dimension; a TypeError for a 0-d tensor.",
    "Tensor.view": """\
Returns a view of the tensor with the same elements in a new shape.

The result shares the tensor's storage: writes to one show in the other. ``view`` never
copies: when the tensor's strides cannot express the new shape (a transposed tensor viewed as
1-D, for example) it raises RuntimeError; ``reshape`` copies in that case. Unlike PyTorch,
``view(dtype)`` (reinterpreting the bytes as another dtype) is not supported.

Args:
    *shape (int): the new sizes, as separate ints or one tuple or list. One of them may be
        ``-1``: it is inferred from the others and the number of elements.

Returns:
    Tensor: a view with the new shape.

Example::

    >>> x = genesis.arange(6)
    >>> x.view(2, 3)
    tensor([[0, 1, 2],
            [3, 4, 5]])
    >>> x.view(-1, 2).shape
    genesis.Size([3, 2])
""",
    "Tensor.view_as": """\
Returns a view of the tensor with the shape of ``other``: ``view(other.shape)``.

Args:
    other (Tensor): the tensor whose shape to take (its dtype and device do not matter).

Returns:
    Tensor: a view with ``other``'s shape.

Example::

    >>> genesis.arange(6).view_as(genesis.zeros(3, 2)).shape
    genesis.Size([3, 2])
""",
    "Tensor.reshape": RESHAPE,
    "Tensor.reshape_as": """\
Returns the tensor in the shape of ``other``: ``reshape(other.shape)``.

A view when the strides allow it, else a copy.

Args:
    other (Tensor): the tensor whose shape to take.

Returns:
    Tensor: the reshaped tensor.

Example::

    >>> genesis.arange(6).reshape_as(genesis.zeros(2, 3))
    tensor([[0, 1, 2],
            [3, 4, 5]])
""",
    "Tensor.transpose": TRANSPOSE,
    "Tensor.permute": PERMUTE,
    "Tensor.t": T,
    "Tensor.T": """\
The tensor with all of its dimensions reversed (a view).

For a matrix this is the transpose; for ``n`` dimensions it is ``permute(n-1, ..., 0)``.

Example::

    >>> genesis.zeros(2, 3, 4).T.shape
    genesis.Size([4, 3, 2])
    >>> genesis.tensor([[1, 2], [3, 4]]).T
    tensor([[1, 3],
            [2, 4]])
""",
    "Tensor.mT": """\
The tensor with its last two dimensions swapped (a view): a batch of transposed matrices.

The tensor must have at least 2 dimensions (ValueError otherwise).

Example::

    >>> genesis.zeros(5, 2, 3).mT.shape
    genesis.Size([5, 3, 2])
""",
    "Tensor.flatten": FLATTEN,
    "Tensor.squeeze": SQUEEZE,
    "Tensor.unsqueeze": UNSQUEEZE,
    "Tensor.expand": """\
Returns a view of the tensor with size-1 dimensions repeated to larger sizes.

No memory is copied: an expanded dimension gets stride 0, so all its elements are the same
memory. New dimensions may be added in front. Write to an expanded tensor only after
``clone()``: in-place operations on it raise RuntimeError, as in PyTorch.

Args:
    *sizes (int): the new sizes, as separate ints or one tuple or list; ``-1`` keeps a
        dimension's size. Only dimensions of size 1 can grow.

Returns:
    Tensor: an expanded view.

Example::

    >>> x = genesis.tensor([[1], [2]])
    >>> x.expand(2, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]])
    >>> x.expand(4, -1, 3).shape, x.expand(2, 3).stride()
    (genesis.Size([4, 2, 3]), (1, 0))
""",
    "Tensor.expand_as": """\
Returns the tensor expanded to the shape of ``other``: ``expand(other.shape)``.

Args:
    other (Tensor): the tensor whose shape to take.

Returns:
    Tensor: an expanded view.

Example::

    >>> genesis.tensor([1, 2]).expand_as(genesis.zeros(2, 2))
    tensor([[1, 2],
            [1, 2]])
""",
    "Tensor.narrow": NARROW,
    "Tensor.select": SELECT,
    "Tensor.__iter__": """\
iter(x): the views x[0], x[1], ... along dimension 0; a TypeError for a 0-d tensor.""",
    "UntypedStorage": """\
The memory behind one or more tensors: a block of bytes on one device.

A storage handle comes from ``Tensor.untyped_storage()``; every view of a tensor shares one
storage, and the memory lives as long as a tensor or handle refers to it. It has no dtype or
shape: ``nbytes()`` counts bytes. genesis storages cannot be made directly from Python.

Example::

    >>> x = genesis.arange(6, dtype=genesis.float32)
    >>> s = x.untyped_storage()
    >>> s
    genesis.UntypedStorage(nbytes=24, device='cpu')
    >>> s.nbytes(), len(s), s.device
    (24, 24, device(type='cpu'))
""",
    "UntypedStorage.nbytes": """\
Returns the size of the storage in bytes.

Returns:
    int: the number of bytes (also ``len(storage)`` and ``size()``).

Example::

    >>> genesis.zeros(2, 3).untyped_storage().nbytes()
    24
""",
    "UntypedStorage.size": """\
Returns the size of the storage in bytes (the same as ``nbytes()``).

As with PyTorch's ``UntypedStorage.size()``, the unit is bytes, not elements.

Returns:
    int: the number of bytes.

Example::

    >>> genesis.zeros(4, dtype=genesis.int16).untyped_storage().size()
    8
""",
    "UntypedStorage.device": """\
The device the storage's memory is on, a ``genesis.device``.

Example::

    >>> genesis.zeros(2).untyped_storage().device
    device(type='cpu')
""",
    "UntypedStorage.data_ptr": """\
Returns the address of the storage's first byte, as an int (0 for an empty storage).

A tensor's ``data_ptr()`` is this address plus ``storage_offset() * itemsize``. Like
``Tensor.data_ptr()``, it hands the memory out, so genesis stops trusting its cached CUDA
index checks for it.

Returns:
    int: a host address for CPU memory, a device address for CUDA memory.

Example::

    >>> x = genesis.zeros(4)
    >>> x.untyped_storage().data_ptr() == x.data_ptr()
    True
""",
    "UntypedStorage.use_count": """\
Returns how many tensors and other handles share this memory.

The handle this is called on is not counted. Views of one tensor count separately; a handle
held inside genesis (a NumPy array made by ``Tensor.numpy()``, for example) counts as one.

Returns:
    int: the number of other references to the memory.

Example::

    >>> x = genesis.zeros(4)
    >>> x.untyped_storage().use_count()
    1
    >>> v = x[1:]
    >>> x.untyped_storage().use_count()
    2
""",
    "UntypedStorage.__len__": "len(storage): the size of the storage in bytes.",
    "UntypedStorage.clone": """\
Returns a copy of the storage: new memory on the same device with the same bytes.

Returns:
    UntypedStorage: the copy.

Example::

    >>> s = genesis.ones(2).untyped_storage()
    >>> c = s.clone()
    >>> c.nbytes(), c.data_ptr() != s.data_ptr()
    (8, True)
""",
    "UntypedStorage.to": """\
Returns the storage's bytes on ``device``: a copy, or this storage if it is there.

Args:
    device (genesis.device, str or int): the target device: ``"cpu"``, ``"cuda"``,
        ``"cuda:N"`` or an int (a CUDA index).

Returns:
    UntypedStorage: storage on ``device``.

Example::

    >>> s = genesis.ones(2).untyped_storage()
    >>> s.to("cpu").device
    device(type='cpu')
    >>> s.to("cuda").device  # doctest: +SKIP
    device(type='cuda', index=0)
""",
    "UntypedStorage.copy_": """\
Copies the bytes of ``other`` into this storage, in place; returns this storage.

Both storages must have the same size (ValueError otherwise); they may be on different devices.

Args:
    other (UntypedStorage): the storage to copy from.

Returns:
    UntypedStorage: this storage.

Example::

    >>> x, y = genesis.zeros(2), genesis.ones(2)
    >>> _ = x.untyped_storage().copy_(y.untyped_storage())
    >>> x
    tensor([1., 1.])
""",
    "UntypedStorage.__repr__": """\
repr(storage): ``genesis.UntypedStorage(nbytes=..., device='...')``.""",
    "Tensor.size": (None, SIZE),
    "Tensor.stride": (None, STRIDE),
    "flatten": function_form(FLATTEN),
    "narrow": function_form(NARROW),
    "permute": function_form(PERMUTE),
    "reshape": function_form(RESHAPE),
    "select": function_form(SELECT),
    "squeeze": function_form(SQUEEZE),
    "t": function_form(T),
    "transpose": function_form(TRANSPOSE),
    "unsqueeze": function_form(UNSQUEEZE),
}

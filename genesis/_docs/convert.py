"""Docstrings of the Tensor conversions (csrc/python/convert.cpp): to, cpu, cuda, clone, casts,
item, tolist."""

from ._fragments import RETURNS_NONE, RETURNS_SELF

_TRUNCATES = "Floats are truncated toward zero."
_WRAPS = "Floats are truncated toward zero; integers wrap."


def _cast(name: str, dtype: str, notes: str, example_input: str, output: str) -> str:
    """Tensor.<name>: ``to(genesis.<dtype>)``, with ``notes`` (a paragraph, or "")."""
    article = "an" if dtype.startswith("int") else "a"
    notes = f"{notes}\n\n" if notes else ""
    return f"""\
Returns the tensor cast to {dtype} (``to(genesis.{dtype})``; itself when it is {dtype}).

{notes}Returns:
    Tensor: {article} {dtype} tensor.

Example::

    >>> genesis.tensor({example_input}).{name}()
    {output}
"""


DOCS = {
    "Tensor.to": """\
Returns the tensor converted to another dtype and/or device.

The forms of PyTorch: ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)`` (the
dtype and device of tensor ``other``), and the keywords below. A dtype may be a genesis dtype,
a name (``"float16"``), a Python type or a NumPy dtype; a device a ``genesis.device``,
``"cpu"``, ``"cuda"``, ``"cuda:N"`` or an int (a CUDA index). When the tensor already has the
dtype and device asked for, the tensor itself is returned (not a copy), unless ``copy=True``.
Every copy is contiguous (row-major), whatever the source's layout; PyTorch keeps a dense
layout instead.

Casts work as in NumPy: float to int truncates toward zero, integers wrap, anything nonzero is
True, and float64 to float16 or bfloat16 rounds once, to nearest.

Args:
    *args: a dtype, a device, both (device first), or a tensor.
    dtype (genesis.dtype, optional): keyword: the dtype. Default: None (unchanged).
    device (genesis.device, str or int, optional): keyword: the device. Default: None
        (unchanged).
    copy (bool): keyword: always return a new tensor. Default: False.
    non_blocking (bool): keyword: between pinned host memory and a GPU, queue the copy on the
        current stream and return without waiting (synchronize before reading the result); a
        CUDA tensor copied to the CPU this way lands in pinned memory. Default: False.
    memory_format (genesis.memory_format, optional): keyword: lay the result out in this
        format (``genesis.channels_last`` for 4-D tensors, Note [Memory formats]);
        ``preserve_format`` keeps the converted tensor's. Default: None (as converted).

Returns:
    Tensor: the converted tensor, or this tensor when nothing changes.

Example::

    >>> x = genesis.tensor([1.5, -2.5])
    >>> x.to(genesis.int32)
    tensor([ 1, -2], dtype=genesis.int32)
    >>> x.to("cpu", "float64")
    tensor([ 1.5000, -2.5000], dtype=genesis.float64)
    >>> x.to("cpu") is x, x.to(copy=True) is x
    (True, False)
    >>> x.to("cuda").device  # doctest: +SKIP
    device(type='cuda', index=0)
""",
    "Tensor.cuda": """\
Returns the tensor on a CUDA device: a copy, or this tensor when it is there already.

Needs a CUDA build and a GPU (RuntimeError otherwise).

Args:
    device (genesis.device, str or int, optional): the CUDA device. Default: None (the
        current CUDA device).
    non_blocking (bool): copy from pinned host memory without waiting (see ``to``).
        Default: False.

Returns:
    Tensor: a CUDA tensor.

Example::

    >>> x = genesis.ones(2)
    >>> x.cuda().device  # doctest: +SKIP
    device(type='cuda', index=0)
    >>> x.cuda(0).cuda() is not x  # doctest: +SKIP
    True
""",
    "Tensor.cpu": """\
Returns the tensor in host memory: a copy of a CUDA tensor, or this tensor itself.

Returns:
    Tensor: a CPU tensor (``self`` when the tensor is on the CPU already).

Example::

    >>> x = genesis.ones(2)
    >>> x.cpu() is x
    True
    >>> genesis.ones(2, device="cuda").cpu()  # doctest: +SKIP
    tensor([1., 1.])
""",
    "Tensor.clone": """\
Returns a copy of the tensor in new memory on the same device, with the same dtype.

The copy is contiguous (row-major), even when the tensor is not: a transposed tensor's clone
has row-major strides (PyTorch would keep the transposed layout). ``memory_format=
genesis.channels_last`` lays the copy out with the channels innermost, and ``preserve_format``
keeps a channels-last tensor's layout (Note [Memory formats]). Use it to copy a tensor (tensors
do not support ``copy.copy``) or before writing to an expanded view.

Args:
    memory_format (genesis.memory_format, optional): the copy's layout. Default: None
        (row-major).

Returns:
    Tensor: a new tensor with the same values.

Example::

    >>> x = genesis.arange(6).view(2, 3)
    >>> c = x.t().clone()
    >>> c.stride(), c.data_ptr() != x.data_ptr()
    ((2, 1), True)
""",
    "Tensor.pin_memory": """\
Returns a copy of this CPU tensor in page-locked (pinned) host memory.

Pinned memory comes from its own caching pool; copies between it and a GPU can run
asynchronously (``to(..., non_blocking=True)``). A tensor that is pinned already is returned
as it is. Needs a CUDA build and a GPU (RuntimeError otherwise).

Returns:
    Tensor: a pinned CPU tensor.

Example::

    >>> h = genesis.ones(1024).pin_memory()  # doctest: +SKIP
    >>> h.is_pinned(), h.pin_memory() is h  # doctest: +SKIP
    (True, True)
""",
    "Tensor.is_pinned": """\
Returns True when the tensor is in page-locked (pinned) host memory.

Returns:
    bool: whether the memory is pinned (always False for CUDA tensors and in CPU-only
    builds).

Example::

    >>> genesis.ones(2).is_pinned()
    False
""",
    "Tensor.record_stream": f"""\
Marks that ``stream`` uses this CUDA tensor's memory, so it is not reused too early.

When the tensor is freed, the caching pool reuses its memory only after the work queued on
``stream`` so far has run. Call it for a tensor made on one stream and used on another.

Args:
    stream (genesis.cuda.Stream or int): the stream, or its ``cuda_stream`` handle.

{RETURNS_NONE}

Example::

    >>> s = genesis.cuda.Stream()  # doctest: +SKIP
    >>> x = genesis.ones(4, device="cuda")  # doctest: +SKIP
    >>> with genesis.cuda.stream(s):  # doctest: +SKIP
    ...     y = x * 2
    >>> x.record_stream(s)  # doctest: +SKIP
""",
    "Tensor.contiguous": """\
Returns a contiguous tensor with the same values: this tensor, or a row-major copy.

With ``memory_format=genesis.channels_last`` (4-D) or ``channels_last_3d`` (5-D) the tensor is
laid out with its channels innermost instead, its sizes unchanged (Note [Memory formats]).

Args:
    memory_format (genesis.memory_format, optional): the layout asked for. Default: None
        (``genesis.contiguous_format``).

Returns:
    Tensor: ``self`` when it already has the layout, else a new copy in it.

Example::

    >>> x = genesis.arange(6).view(2, 3)
    >>> x.contiguous() is x
    True
    >>> y = x.t().contiguous()
    >>> y.is_contiguous(), y.stride()
    (True, (2, 1))
    >>> genesis.zeros(2, 3, 4, 5).contiguous(memory_format=genesis.channels_last).stride()
    (60, 1, 15, 3)
""",
    "Tensor.copy_": f"""\
Copies the values of ``src`` into this tensor, in place, and returns this tensor.

``src`` broadcasts to this tensor's shape and is cast to its dtype; it may be on another
device. A list, tuple or NumPy array works too (converted as ``genesis.tensor`` would).

Args:
    src (Tensor or array-like): the values.
    non_blocking (bool): accepted for PyTorch compatibility; the copy currently always waits.
        Default: False.

{RETURNS_SELF}

Example::

    >>> x = genesis.zeros(2, 3)
    >>> x.copy_(genesis.tensor([1, 2, 3]))
    tensor([[1., 2., 3.],
            [1., 2., 3.]])
    >>> x.copy_([[1, 2, 3], [4, 5, 6]])[1]
    tensor([4., 5., 6.])
""",
    "Tensor.fill_": f"""\
Fills this tensor with ``value``, in place, and returns it.

A value that does not fit an integer dtype is a RuntimeError (``int8`` and 300); floats are
cast as ``to`` casts them.

Args:
    value (Number or Tensor): the value; a one-element tensor works too.

{RETURNS_SELF}

Example::

    >>> genesis.zeros(3).fill_(2.5)
    tensor([2.5000, 2.5000, 2.5000])
""",
    "Tensor.zero_": f"""\
Fills this tensor with zeros, in place, and returns it.

{RETURNS_SELF}

Example::

    >>> genesis.ones(2, dtype=genesis.int32).zero_()
    tensor([0, 0], dtype=genesis.int32)
""",
    "Tensor.item": """\
Returns the value of a one-element tensor as a Python number (bool, int or float).

A CUDA tensor's value is copied to the host (which waits for the device). A tensor that does
not have exactly one element is a ValueError (PyTorch raises RuntimeError).

Returns:
    bool, int or float: the value, by the tensor's dtype.

Example::

    >>> genesis.tensor([[2.5]]).item()
    2.5
    >>> genesis.tensor(7).item(), genesis.tensor(True).item()
    (7, True)
""",
    "Tensor.tolist": """\
Returns the tensor's values as nested Python lists of numbers.

A 0-d tensor gives a number. CUDA tensors are copied to the host first.

Returns:
    list or number: nested lists with the tensor's shape.

Example::

    >>> genesis.arange(4).view(2, 2).tolist()
    [[0, 1], [2, 3]]
    >>> genesis.tensor(1.5).tolist()
    1.5
""",
    "Tensor.float": _cast("float", "float32", "", "[1, 2]", "tensor([1., 2.])"),
    "Tensor.half": _cast(
        "half", "float16", "", "[1.0, 0.1]", "tensor([1.0000, 0.1000], dtype=genesis.float16)"
    ),
    "Tensor.bfloat16": """\
Returns the tensor cast to bfloat16 (``to(genesis.bfloat16)``; itself if bfloat16).

bfloat16 has float32's range with 8 bits of precision. NumPy has no bfloat16, so
``numpy()`` refuses it (use ``float()`` first).

Returns:
    Tensor: a bfloat16 tensor.

Example::

    >>> genesis.tensor([1.0, 0.1]).bfloat16()
    tensor([1.0000, 0.1001], dtype=genesis.bfloat16)
""",
    "Tensor.double": _cast(
        "double", "float64", "", "[1, 2]", "tensor([1., 2.], dtype=genesis.float64)"
    ),
    "Tensor.int": _cast(
        "int", "int32", _TRUNCATES, "[2.9, -2.9]", "tensor([ 2, -2], dtype=genesis.int32)"
    ),
    "Tensor.long": _cast("long", "int64", _TRUNCATES, "[2.9, -2.9]", "tensor([ 2, -2])"),
    "Tensor.short": _cast(
        "short", "int16", _WRAPS, "[1, 70000]", "tensor([   1, 4464], dtype=genesis.int16)"
    ),
    "Tensor.char": _cast(
        "char", "int8", _WRAPS, "[1, 200]", "tensor([  1, -56], dtype=genesis.int8)"
    ),
    "Tensor.byte": _cast(
        "byte", "uint8", _WRAPS, "[255, 256, -1]", "tensor([255,   0, 255], dtype=genesis.uint8)"
    ),
    "Tensor.bool": _cast(
        "bool",
        "bool",
        "Every nonzero value (NaN included) is True.",
        "[0.0, 0.5, -2.0]",
        "tensor([False,  True,  True])",
    ),
    "Tensor.type": """\
Returns the name of the tensor's dtype, or the tensor cast to ``dtype``.

Without an argument the result is a string such as ``'genesis.float32'`` (PyTorch returns a
legacy type name such as ``'torch.FloatTensor'``). With one it is ``to(dtype)``.

Args:
    dtype (genesis.dtype or str, optional): the dtype to cast to. Default: None (return the
        name).

Returns:
    str or Tensor: the dtype's name, or the cast tensor.

Example::

    >>> x = genesis.zeros(2)
    >>> x.type()
    'genesis.float32'
    >>> x.type(genesis.int16)
    tensor([0, 0], dtype=genesis.int16)
""",
    "Tensor.__bool__": """\
bool(x): the truth of a one-element tensor; a RuntimeError for any other size.""",
    "Tensor.__float__": """\
float(x): the value of a one-element tensor as a float; a ValueError otherwise.""",
    "Tensor.__int__": """\
int(x): a one-element tensor as an int (floats truncate); a ValueError otherwise.""",
    "Tensor.__index__": """\
operator.index(x): a one-element integer tensor as an int, so it can index a list.""",
}

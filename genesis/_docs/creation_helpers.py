"""Docstrings of csrc/python/creation_helpers.cpp: Tensor.new_*, type_as, genesis.asarray/as_tensor
and the small queries.
"""

from ._fragments import (
    DEVICE_OTHER,
    DTYPE_OTHER,
    INPUT_TENSOR,
    RETURNS_NEW,
    SIZE,
    example,
)


def _new(what: str, result: str, *example_lines: str) -> str:
    """Tensor.new_empty, new_zeros and new_ones: a tensor of ``what`` of the given size."""
    return f"""\
Returns {what} of the given size, with this tensor's dtype and device.

Args:
{SIZE}
{DTYPE_OTHER}
{DEVICE_OTHER}

Returns:
    Tensor: {result}.

{example(*example_lines)}"""


DOCS = {
    "Tensor.new_empty": _new(
        "an uninitialised tensor",
        "a new tensor whose values are whatever the memory held",
        ">>> genesis.zeros(2, dtype=genesis.int32).new_empty(3, 4).dtype",
        "genesis.int32",
    ),
    "Tensor.new_zeros": _new(
        "a tensor of zeros",
        "a new tensor of zeros",
        ">>> genesis.ones(2, dtype=genesis.float64).new_zeros((2, 2))",
        "tensor([[0., 0.],",
        "        [0., 0.]], dtype=genesis.float64)",
    ),
    "Tensor.new_ones": _new(
        "a tensor of ones",
        "a new tensor of ones",
        ">>> genesis.zeros(1, dtype=genesis.int64).new_ones(3)",
        "tensor([1, 1, 1])",
    ),
    "Tensor.new_full": f"""\
Returns a tensor of ``size`` filled with ``fill_value``, with this tensor's dtype and device.

Args:
    size (sequence of ints): the sizes.
    fill_value (number): the value of every element.
{DTYPE_OTHER}
{DEVICE_OTHER}

Returns:
    Tensor: a new filled tensor.

Example::

    >>> genesis.zeros(1).new_full((2,), 7)
    tensor([7., 7.])
""",
    "Tensor.new_tensor": f"""\
Returns a copy of ``data`` as a tensor with this tensor's dtype and device.

``data`` is anything ``genesis.tensor`` takes; the result never shares memory with it.

Args:
    data (array_like): numbers, nested sequences, arrays or tensors.
{DTYPE_OTHER}
{DEVICE_OTHER}

{RETURNS_NEW}

Example::

    >>> genesis.zeros(1, dtype=genesis.int32).new_tensor([1.7, 2.2])
    tensor([1, 2], dtype=genesis.int32)
""",
    "Tensor.type_as": """\
Returns this tensor converted to the dtype and device of ``other`` (this tensor itself when
it already has both), as PyTorch's ``self.type(other.type())``.

Args:
    other (Tensor): the tensor whose dtype and device to take.

Returns:
    Tensor: the converted tensor.

Example::

    >>> genesis.tensor([1, 2]).type_as(genesis.zeros(1)).dtype
    genesis.float32
""",
    "asarray": """\
Converts ``obj`` to a tensor, sharing memory when it can (Python array API's asarray).

A genesis tensor, a NumPy array and any DLPack producer (PyTorch, CuPy, JAX) are shared when
neither ``dtype`` nor ``device`` asks for a change; other data (numbers, nested sequences) is
copied. ``copy=True`` always copies; ``copy=False`` raises ValueError when a copy is needed.

Args:
    obj (object): the data.
    dtype (genesis.dtype, optional): the dtype of the result. Default: None (the data's).
    device (genesis.device, optional): the device of the result. Default: None (the data's,
        the CPU for Python data).
    copy (bool, optional): True to copy, False to refuse copying, None to copy only when
        needed. Default: None.

Returns:
    Tensor: a tensor sharing or holding the data.

Example::

    >>> a = np.arange(3.0)
    >>> t = genesis.asarray(a)
    >>> t[0] = 5.0
    >>> a[0]
    np.float64(5.0)
    >>> genesis.asarray([1, 2], dtype=genesis.float32)
    tensor([1., 2.])
""",
    "as_tensor": """\
Converts ``data`` to a tensor, sharing memory when it can (PyTorch's as_tensor).

The same as ``genesis.asarray(data, dtype=dtype, device=device)``: tensors, NumPy arrays and
DLPack producers are shared when no conversion is asked for; other data is copied.

Args:
    data (object): the data.
    dtype (genesis.dtype, optional): the dtype of the result. Default: None (the data's).
    device (genesis.device, optional): the device of the result. Default: None.

Returns:
    Tensor: a tensor sharing or holding the data.

Example::

    >>> x = genesis.zeros(2)
    >>> genesis.as_tensor(x) is x
    True
""",
    "numel": f"""\
Returns the number of elements of ``input``.

Args:
{INPUT_TENSOR}

Returns:
    int: the product of its sizes.

Example::

    >>> genesis.numel(genesis.zeros(2, 3))
    6
""",
    "can_cast": """\
Whether PyTorch's casting rules allow ``from_`` to be cast to ``to`` in an in-place op.

Floating to integral and anything but bool to bool are not allowed; everything else is.

Args:
    from_ (genesis.dtype): the source dtype.
    to (genesis.dtype): the target dtype.

Returns:
    bool: whether the cast is allowed.

Example::

    >>> genesis.can_cast(genesis.int32, genesis.float16), genesis.can_cast(genesis.float32, genesis.int64)
    (True, False)
""",
    "is_floating_point": f"""\
Whether ``input``'s dtype is a floating point dtype.

Args:
{INPUT_TENSOR}

Returns:
    bool: True for float16, bfloat16, float32 and float64.

Example::

    >>> genesis.is_floating_point(genesis.zeros(1)), genesis.is_floating_point(genesis.arange(2))
    (True, False)
""",
    "is_nonzero": """\
Whether a one-element tensor is non-zero (RuntimeError for any other number of elements).

Args:
    input (Tensor): a tensor with exactly one element.

Returns:
    bool: whether its value is not zero.

Example::

    >>> genesis.is_nonzero(genesis.tensor([0.5])), genesis.tensor(0).is_nonzero()
    (True, False)
""",
    "Tensor.is_nonzero": """\
Whether this one-element tensor is non-zero (RuntimeError for any other element count).

Returns:
    bool: whether its value is not zero.

Example::

    >>> genesis.tensor(0).is_nonzero()
    False
""",
}

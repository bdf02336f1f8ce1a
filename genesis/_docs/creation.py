"""Docstrings of the factory functions (csrc/python/creation.cpp): genesis.tensor, zeros ..."""

from ._fragments import (
    DEVICE,
    DEVICE_LIKE,
    DTYPE_FLOAT32,
    DTYPE_LIKE,
    INPUT_LIKE,
    RETURNS_CONTIGUOUS,
    example,
)

_SIZES = "    *size (int): the sizes, as separate ints or one tuple or list (not negative)."


def _filled(what: str, *example_lines: str) -> str:
    """genesis.zeros and genesis.ones: a tensor of the given size filled with ``what``."""
    return f"""\
Returns a tensor of the given size filled with {what}.

Args:
{_SIZES}
{DTYPE_FLOAT32}
{DEVICE}

{RETURNS_CONTIGUOUS}

{example(*example_lines)}"""


def _like(what: str, returns: str, *example_lines: str) -> str:
    """genesis.empty_like, zeros_like and ones_like: ``what`` with the shape of ``input``."""
    return f"""\
Returns {what} with the shape of ``input`` (and its dtype and device).

Args:
{INPUT_LIKE}
{DTYPE_LIKE}
{DEVICE_LIKE}

{returns}

{example(*example_lines)}"""


DOCS = {
    "tensor": """\
Builds a new tensor by copying ``data``: numbers, nested sequences, arrays or tensors.

``data`` may be a Python number (a 0-d tensor), nested lists or tuples of numbers (not ragged:
a ValueError), a NumPy array or scalar, a genesis tensor, or any object with ``__dlpack__``
(PyTorch, CuPy, JAX arrays) or ``__array__``. The result never shares memory with ``data``
(``from_numpy`` and ``from_dlpack`` share).

Without ``dtype``, the dtype is inferred as PyTorch does: Python bools give bool, ints int64,
floats float32, and the widest kind wins (bool < int64 < float32; NumPy would pick float64);
an empty list is float32. NumPy arrays, NumPy scalars and tensors keep their own dtype. A
Python number that does not fit an integer ``dtype`` is a RuntimeError (``[300]`` as uint8);
floats round to the nearest value, once.

Args:
    data: the values to copy.
    dtype (genesis.dtype, optional): keyword-only: the dtype of the result (a genesis dtype,
        a name such as ``"float16"``, a Python type or a NumPy dtype). Default: None (inferred).
    device (genesis.device, str or int, optional): keyword-only: where the tensor goes.
        Default: None: the device of ``data`` when it is a tensor (genesis or DLPack), else the
        CPU.

Returns:
    Tensor: a new tensor that owns its memory.

Example::

    >>> genesis.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> genesis.tensor([1, 2.5]).dtype, genesis.tensor([True, 2]).dtype
    (genesis.float32, genesis.int64)
    >>> genesis.tensor(3.5)
    tensor(3.5000)
    >>> genesis.tensor([1, 2], dtype=genesis.float64)
    tensor([1., 2.], dtype=genesis.float64)
    >>> genesis.tensor(np.arange(3, dtype=np.int16))
    tensor([0, 1, 2], dtype=genesis.int16)
    >>> genesis.tensor([1.0, 2.0], device="cuda")  # doctest: +SKIP
    tensor([1., 2.], device='cuda:0')
""",
    "empty": f"""\
Returns a tensor of the given size whose memory is not initialized.

The fastest factory: the elements hold whatever the memory held. CUDA memory comes from
genesis's caching pool; ``pin_memory=True`` gives page-locked host memory (for non-blocking
copies to and from a GPU; it needs a CUDA build with a GPU).

Args:
{_SIZES}
{DTYPE_FLOAT32}
{DEVICE}
    pin_memory (bool): keyword-only: allocate pinned host memory (CPU tensors only).
        Default: False.

Returns:
    Tensor: a new contiguous tensor with arbitrary values.

Example::

    >>> x = genesis.empty(2, 3)
    >>> x.shape, x.dtype, x.is_contiguous()
    (genesis.Size([2, 3]), genesis.float32, True)
    >>> genesis.empty((4,), dtype=genesis.int8).shape
    genesis.Size([4])
    >>> genesis.empty(1024, pin_memory=True).is_pinned()  # doctest: +SKIP
    True
""",
    "zeros": _filled(
        "zeros",
        ">>> genesis.zeros(2, 3)",
        "tensor([[0., 0., 0.],",
        "        [0., 0., 0.]])",
        ">>> genesis.zeros((2,), dtype=genesis.int32)",
        "tensor([0, 0], dtype=genesis.int32)",
    ),
    "ones": _filled(
        "ones",
        ">>> genesis.ones(3)",
        "tensor([1., 1., 1.])",
        ">>> genesis.ones([2, 2], dtype=genesis.bool)",
        "tensor([[True, True],",
        "        [True, True]])",
    ),
    "full": f"""\
Returns a tensor of the given size filled with ``fill_value``.

Without ``dtype``, the dtype comes from the value: bool for a bool, int64 for an int, float32
for a float (as in PyTorch). A value that does not fit an integer ``dtype`` is a RuntimeError.

Args:
    size (tuple of ints or int): the sizes, as a tuple or list (or one int).
    fill_value (Number): the value of every element.
    dtype (genesis.dtype, optional): keyword-only: the dtype. Default: None (from the value).
{DEVICE}

{RETURNS_CONTIGUOUS}

Example::

    >>> genesis.full((2, 2), 7)
    tensor([[7, 7],
            [7, 7]])
    >>> genesis.full((3,), 0.5)
    tensor([0.5000, 0.5000, 0.5000])
    >>> genesis.full((2,), 1, dtype=genesis.float16)
    tensor([1., 1.], dtype=genesis.float16)
""",
    "arange": f"""\
Returns a 1-D tensor of values from ``start`` to ``end`` (excluded), ``step`` apart.

``arange(end)`` starts at 0. The tensor has ``ceil((end - start) / step)`` elements; ``step``
may be negative and must not be 0. Without ``dtype`` the result is int64 when all arguments
are ints and float32 otherwise, as in PyTorch. With a float step, rounding may make the count
one more or less than expected; ``linspace`` avoids that.

Args:
    start (Number): the first value; the end when ``end`` is left out.
    end (Number, optional): the bound, not included. Default: None.
    step (Number): the gap between values. Default: 1.
    dtype (genesis.dtype, optional): keyword-only: the dtype. Default: None (see above).
{DEVICE}

Returns:
    Tensor: a new 1-D tensor.

Example::

    >>> genesis.arange(5)
    tensor([0, 1, 2, 3, 4])
    >>> genesis.arange(5, 0, -2)
    tensor([5, 3, 1])
    >>> genesis.arange(0, 1, 0.25)
    tensor([0.0000, 0.2500, 0.5000, 0.7500])
""",
    "linspace": f"""\
Returns ``steps`` evenly spaced values from ``start`` to ``end``, both included.

Args:
    start (Number): the first value.
    end (Number): the last value.
    steps (int): the number of values (0 gives an empty tensor, 1 just ``start``).
{DTYPE_FLOAT32}
{DEVICE}

Returns:
    Tensor: a new 1-D tensor with ``steps`` elements.

Example::

    >>> genesis.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    >>> genesis.linspace(-1, 1, 3, dtype=genesis.float64)
    tensor([-1.,  0.,  1.], dtype=genesis.float64)
""",
    "eye": f"""\
Returns a 2-D tensor with ones on the diagonal and zeros elsewhere (an identity matrix).

Args:
    n (int): the number of rows.
    m (int, optional): the number of columns. Default: None (``n``).
{DTYPE_FLOAT32}
{DEVICE}

Returns:
    Tensor: a new ``n x m`` tensor.

Example::

    >>> genesis.eye(2)
    tensor([[1., 0.],
            [0., 1.]])
    >>> genesis.eye(2, 3, dtype=genesis.int32)
    tensor([[1, 0, 0],
            [0, 1, 0]], dtype=genesis.int32)
""",
    "empty_like": _like(
        "an uninitialized tensor",
        "Returns:\n    Tensor: a new contiguous tensor with arbitrary values.",
        ">>> x = genesis.empty_like(genesis.zeros(2, 3, dtype=genesis.int8))",
        ">>> x.shape, x.dtype",
        "(genesis.Size([2, 3]), genesis.int8)",
    ),
    "zeros_like": _like(
        "a tensor of zeros",
        RETURNS_CONTIGUOUS,
        ">>> genesis.zeros_like(genesis.arange(3))",
        "tensor([0, 0, 0])",
    ),
    "ones_like": _like(
        "a tensor of ones",
        RETURNS_CONTIGUOUS,
        ">>> genesis.ones_like(genesis.arange(3), dtype=genesis.float16)",
        "tensor([1., 1., 1.], dtype=genesis.float16)",
    ),
    "full_like": f"""\
Returns a tensor filled with ``fill_value``, with the shape of ``input`` (and its dtype).

The value is cast to the result's dtype (``input``'s unless ``dtype`` is given), so a float
value fills an integer tensor truncated toward zero.

Args:
{INPUT_LIKE}
    fill_value (Number): the value of every element.
{DTYPE_LIKE}
{DEVICE_LIKE}

{RETURNS_CONTIGUOUS}

Example::

    >>> x = genesis.arange(4).view(2, 2)
    >>> genesis.full_like(x, 2.7)
    tensor([[2, 2],
            [2, 2]])
    >>> genesis.full_like(x, 2.7, dtype=genesis.float32)
    tensor([[2.7000, 2.7000],
            [2.7000, 2.7000]])
""",
}

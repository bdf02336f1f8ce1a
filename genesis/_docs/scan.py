"""Docstrings of csrc/python/scan.cpp: cumsum, cumprod, logcumsumexp, cummax, cummin and the in-
place cumsum_/cumprod_.
"""

from ._fragments import (
    DIM_SCAN,
    INPUT_FLOAT,
    INPUT_TENSOR,
    OUT_RESULT_SHAPE,
    RETURNS_THIS,
    example,
)


def _running(which: str, *example_lines: str) -> str:
    """genesis.cummax and genesis.cummin: the running ``which`` and its indices."""
    return f"""\
Returns the running {which} along ``dim`` and where it was found.

Ties take the index of the last occurrence; once a NaN is seen the running {which} is NaN,
with the index of the latest NaN (as PyTorch). Every dtype, bool included.

Args:
{INPUT_TENSOR}
{DIM_SCAN}
    out (tuple, optional): a ``(values, indices)`` pair of tensors to write into. Default:
        None.

Returns:
    tuple: a named tuple ``(values, indices)``, indices int64 along ``dim``.

{example(*example_lines)}"""


DOCS = {
    "Tensor.cumsum cumsum": f"""\
Returns the cumulative sum of the elements along ``dim``.

Element ``i`` of the result is the sum of the elements ``0 .. i`` along ``dim``. Integer and
bool inputs give int64 unless ``dtype`` is given; ``dtype`` converts the input first. float16
and bfloat16 accumulate in float32 and store each result in their own dtype.

Args:
{INPUT_TENSOR}
    dim (int): the dim to scan; negative counts from the end (a 0-d tensor takes 0 or -1).
    dtype (genesis.dtype, optional): the result's dtype. Default: None.
{OUT_RESULT_SHAPE}

Returns:
    Tensor: the running sums, of the input's shape.

Example::

    >>> genesis.cumsum(genesis.tensor([[1, 2, 3], [4, 5, 6]]), dim=1)
    tensor([[ 1,  3,  6],
            [ 4,  9, 15]])
""",
    "Tensor.cumprod cumprod": f"""\
Returns the cumulative product of the elements along ``dim``.

Element ``i`` of the result is the product of the elements ``0 .. i`` along ``dim``. Integer
and bool inputs give int64 unless ``dtype`` is given; ``dtype`` converts the input first.

Args:
{INPUT_TENSOR}
{DIM_SCAN}
    dtype (genesis.dtype, optional): the result's dtype. Default: None.
{OUT_RESULT_SHAPE}

Returns:
    Tensor: the running products, of the input's shape.

Example::

    >>> genesis.tensor([1.0, 2.0, 3.0, 4.0]).cumprod(0)
    tensor([ 1.,  2.,  6., 24.])
""",
    "Tensor.logcumsumexp logcumsumexp": f"""\
Returns ``log(cumsum(exp(x)))`` along ``dim``, without overflow.

Each step combines as ``max + log1p(exp(min - max))``, so large inputs do not overflow.
Floating point inputs only (others raise TypeError); float16 and bfloat16 compute in float32.

Args:
{INPUT_FLOAT}
{DIM_SCAN}
{OUT_RESULT_SHAPE}

Returns:
    Tensor: the running log-sum-exps, of the input's shape and dtype.

Example::

    >>> genesis.logcumsumexp(genesis.tensor([1.0, 1.0, 500.0]), 0)  # exp(500) overflows float32
    tensor([  1.0000,   1.6931, 500.0000])
""",
    "Tensor.cummax cummax": _running(
        "maximum",
        ">>> r = genesis.tensor([1, 3, 2, 3, 5]).cummax(0)",
        ">>> r.values, r.indices",
        "(tensor([1, 3, 3, 3, 5]), tensor([0, 1, 1, 3, 4]))",
    ),
    "Tensor.cummin cummin": _running(
        "minimum",
        ">>> values, indices = genesis.cummin(genesis.tensor([4, 2, 3, 2, 1]), 0)",
        ">>> values, indices",
        "(tensor([4, 2, 2, 2, 1]), tensor([0, 1, 1, 3, 4]))",
    ),
    "Tensor.cumsum_": f"""\
In-place ``cumsum``: replaces the tensor by its cumulative sum along ``dim``.

The tensor keeps its dtype (integers accumulate in int64 and wrap into it); bool tensors are
refused.

Args:
{DIM_SCAN}
    dtype (genesis.dtype, optional): must be the tensor's own dtype when given. Default: None.

{RETURNS_THIS}

Example::

    >>> x = genesis.tensor([1, 2, 3])
    >>> x.cumsum_(0)
    tensor([1, 3, 6])
""",
    "Tensor.cumprod_": f"""\
In-place ``cumprod``: replaces the tensor by its cumulative product along ``dim``.

The tensor keeps its dtype; bool tensors are refused.

Args:
{DIM_SCAN}
    dtype (genesis.dtype, optional): must be the tensor's own dtype when given. Default: None.

{RETURNS_THIS}

Example::

    >>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.cumprod_(dim=0)
    tensor([[1., 2.],
            [3., 8.]])
""",
}

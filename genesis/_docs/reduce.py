"""Docstrings of the reductions and softmax (csrc/python/reduce.cpp): genesis.sum ... and
Tensor.sum ... share one text each."""

from ._fragments import (
    DIM_OR_DIMS,
    INPUT_SELF,
    KEEPDIM_EACH,
    KEEPDIM_REDUCED,
    example,
    fill,
)

_DTYPE_FIRST = """\
    dtype (genesis.dtype, optional): keyword-only: the dtype to convert ``input`` to first and
        to return. Default: None."""
_ARGS_VARIANCE = f"""\
Args:
    input (Tensor): a floating point tensor (``self`` for the method).
{DIM_OR_DIMS}
    unbiased (bool, optional): True for ``correction=1``, False for 0. Default: None.
{KEEPDIM_EACH}
    correction (Number, optional): keyword-only: subtracted from the element count.
        Default: None (1)."""


def _truth(which: str, value: str, notes: str, *example_lines: str) -> str:
    """genesis.all and genesis.any: whether ``which`` element is nonzero."""
    paragraph = fill(
        f"Always gives bool, for every input dtype{notes}. Over no elements it is {value}."
    )
    return f"""\
Tests whether {which} element of ``input`` is nonzero (True), over all or over ``dim``.

{paragraph}

Args:
{INPUT_SELF}
{DIM_OR_DIMS}
{KEEPDIM_EACH}

Returns:
    Tensor: a bool tensor; 0-d when everything is reduced.

{example(*example_lines)}"""


def _arg_extreme(which: str, reduction: str, *example_lines: str) -> str:
    """genesis.argmax and genesis.argmin: the index of the ``which`` element."""
    return f"""\
Returns the index of the {which} element of ``input``, overall or along ``dim``.

Without ``dim`` the index is into the flattened tensor. Ties go to the lowest index, and a NaN
counts as the {which} (the first NaN wins). An empty tensor is an error, as in ``{reduction}``.

Args:
{INPUT_SELF}
    dim (int, optional): the dimension to reduce. Default: None (the flattened tensor).
{KEEPDIM_REDUCED}

Returns:
    Tensor: int64 indices; a 0-d tensor without ``dim``.

{example(*example_lines)}"""


DOCS = {
    "Tensor.sum sum": f"""\
Returns the sum of the elements of ``input``, over all of them or over ``dim``.

Integer and bool input gives int64 unless ``dtype`` says otherwise; integer sums wrap in
their dtype. Float sums accumulate in float64 on the CPU, whatever the float dtype; on CUDA
float16 and bfloat16 accumulate in float32 (float32 and float64 in their own type). The result
is rounded once to the output dtype. The sum of no elements is 0.

Args:
{INPUT_SELF}
{DIM_OR_DIMS}
{KEEPDIM_EACH}
{_DTYPE_FIRST}

Returns:
    Tensor: the sums; a 0-d tensor when everything is reduced.

Example::

    >>> x = genesis.arange(6).view(2, 3)
    >>> x.sum()
    tensor(15)
    >>> genesis.sum(x, dim=0), x.sum(1, keepdim=True).shape
    (tensor([3, 5, 7]), genesis.Size([2, 1]))
    >>> x.sum(dim=(0, 1), dtype=genesis.float64)
    tensor(15., dtype=genesis.float64)
""",
    "Tensor.mean mean": f"""\
Returns the mean of the elements of ``input``, over all of them or over ``dim``.

The input must be floating point, or ``dtype`` must give a floating point type: the mean of
an integer tensor is a RuntimeError, as in PyTorch. The sum accumulates as in ``sum``. The mean
of no elements is nan.

Args:
{INPUT_SELF}
{DIM_OR_DIMS}
{KEEPDIM_EACH}
    dtype (genesis.dtype, optional): keyword-only: the floating point dtype to compute in and
        return. Default: None (the input's dtype).

Returns:
    Tensor: the means; a 0-d tensor when everything is reduced.

Example::

    >>> x = genesis.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> x.mean()
    tensor(2.7500)
    >>> genesis.mean(x, dim=1)
    tensor([1.5000, 4.0000])
    >>> genesis.arange(4).mean(dtype=genesis.float32)
    tensor(1.5000)
""",
    "Tensor.prod prod": f"""\
Returns the product of the elements of ``input``, over all of them or over ``dim``.

Integer and bool input gives int64 unless ``dtype`` says otherwise; integer products wrap.
The product of no elements is 1.

Args:
{INPUT_SELF}
{DIM_OR_DIMS}
{KEEPDIM_EACH}
{_DTYPE_FIRST}

Returns:
    Tensor: the products; a 0-d tensor when everything is reduced.

Example::

    >>> x = genesis.arange(1, 7).view(2, 3)
    >>> x.prod()
    tensor(720)
    >>> genesis.prod(x, 1)
    tensor([  6, 120])
""",
    "Tensor.var var": f"""\
Returns the variance of the elements of ``input``, over all of them or over ``dim``.

``sum((x - mean)**2) / (N - correction)``, computed in two passes (the mean, then the squared
deviations) and accumulated as in ``sum``. The input must be floating point. ``correction``
defaults to 1 (Bessel's correction, the sample variance); ``unbiased=False`` means
``correction=0``. Give one of the two, not both. Over no elements, or when ``N - correction``
is not positive, the result is nan or inf.

{_ARGS_VARIANCE}

Returns:
    Tensor: the variances; a 0-d tensor when everything is reduced.

Example::

    >>> v = genesis.tensor([1.0, 3.0])
    >>> v.var()
    tensor(2.)
    >>> genesis.var(v, correction=0), v.var(unbiased=False)
    (tensor(1.), tensor(1.))
    >>> genesis.tensor([[1.0, 3.0], [2.0, 2.0]]).var(1)
    tensor([2., 0.])
""",
    "Tensor.std std": f"""\
Returns the standard deviation of ``input``: the square root of ``var``.

Over all elements or over ``dim``; the input must be floating point. ``correction`` and
``unbiased`` work as in ``var`` (default: correction 1).

{_ARGS_VARIANCE}

Returns:
    Tensor: the standard deviations; a 0-d tensor when everything is reduced.

Example::

    >>> v = genesis.tensor([1.0, 3.0])
    >>> genesis.std(v, correction=0)
    tensor(1.)
    >>> v.std()
    tensor(1.4142)
""",
    "Tensor.all all": _truth(
        "every",
        "True",
        " (PyTorch gives uint8 for uint8 input)",
        ">>> x = genesis.tensor([[1, 0], [2, 3]])",
        ">>> x.all()",
        "tensor(False)",
        ">>> genesis.all(x, dim=1)",
        "tensor([False,  True])",
    ),
    "Tensor.any any": _truth(
        "any",
        "False",
        "",
        ">>> x = genesis.tensor([[0, 0], [0, 3]])",
        ">>> x.any()",
        "tensor(True)",
        ">>> genesis.any(x, 1)",
        "tensor([False,  True])",
    ),
    "Tensor.max max": f"""\
Returns the maximum of ``input``: overall, along ``dim`` with indices, or with a tensor.

- ``max(input)``: a 0-d tensor with the largest element.
- ``max(input, dim, keepdim=False)``: a named tuple ``(values, indices)`` of the largest
  elements along ``dim`` and their int64 indices (ties go to the lowest index).
- ``max(input, other)`` with a tensor ``other``: ``genesis.maximum(input, other)``.

NaN propagates: the result is nan where a NaN is reduced, and its index is the first NaN's.
An empty tensor without ``dim`` is a RuntimeError; a ``dim`` of size 0 is an IndexError.

Args:
{INPUT_SELF}
    dim (int or Tensor, optional): the dimension to reduce, or the tensor to compare with.
        Default: None (all elements).
{KEEPDIM_REDUCED}

Returns:
    Tensor, or a named tuple (values, indices) when ``dim`` is an int.

Example::

    >>> x = genesis.tensor([[0, 5, 2], [3, 4, 3]])
    >>> x.max()
    tensor(5)
    >>> values, indices = genesis.max(x, 1)
    >>> values, indices
    (tensor([5, 4]), tensor([1, 1]))
    >>> x.max(dim=0, keepdim=True).values
    tensor([[3, 5, 3]])
    >>> x.max(genesis.tensor([1, 1, 3]))
    tensor([[1, 5, 3],
            [3, 4, 3]])
""",
    "Tensor.min min": f"""\
Returns the minimum of ``input``: overall, along ``dim`` with indices, or with a tensor.

- ``min(input)``: a 0-d tensor with the smallest element.
- ``min(input, dim, keepdim=False)``: a named tuple ``(values, indices)`` of the smallest
  elements along ``dim`` and their int64 indices (ties go to the lowest index).
- ``min(input, other)`` with a tensor ``other``: ``genesis.minimum(input, other)``.

NaN propagates as in ``max``. An empty tensor without ``dim`` is a RuntimeError; a ``dim`` of
size 0 is an IndexError.

Args:
{INPUT_SELF}
    dim (int or Tensor, optional): the dimension to reduce, or the tensor to compare with.
        Default: None (all elements).
{KEEPDIM_REDUCED}

Returns:
    Tensor, or a named tuple (values, indices) when ``dim`` is an int.

Example::

    >>> x = genesis.tensor([[0, 5, 2], [3, 4, 3]])
    >>> x.min()
    tensor(0)
    >>> r = genesis.min(x, dim=1)
    >>> r.values, r.indices
    (tensor([0, 3]), tensor([0, 0]))
""",
    "Tensor.argmax argmax": _arg_extreme(
        "largest",
        "max",
        ">>> x = genesis.tensor([[0, 5, 2], [3, 4, 9]])",
        ">>> x.argmax()",
        "tensor(5)",
        ">>> genesis.argmax(x, dim=1)",
        "tensor([1, 2])",
    ),
    "Tensor.argmin argmin": _arg_extreme(
        "smallest",
        "min",
        ">>> x = genesis.tensor([[4, 5, 2], [3, 0, 9]])",
        ">>> x.argmin()",
        "tensor(4)",
        ">>> genesis.argmin(x, 1, keepdim=True)",
        "tensor([[2],",
        "        [1]])",
    ),
    "Tensor.softmax softmax": f"""\
Returns the softmax of ``input`` along ``dim``: ``exp(x) / sum(exp(x))``.

Computed stably (the maximum is subtracted first). The input must be floating point, or
``dtype`` must give a floating point type to convert to first; float16 and bfloat16 input is
computed in float32 and rounded once.

Args:
{INPUT_SELF}
    dim (int): the dimension along which the values sum to 1.
    dtype (genesis.dtype, optional): the dtype to convert ``input`` to first and to return.
        Default: None (the input's dtype).

Returns:
    Tensor: a tensor of the same shape.

Example::

    >>> x = genesis.tensor([[1.0, 2.0, 3.0]])
    >>> x.softmax(1)
    tensor([[0.0900, 0.2447, 0.6652]])
    >>> genesis.softmax(genesis.tensor([1, 1]), 0, dtype=genesis.float64)
    tensor([0.5000, 0.5000], dtype=genesis.float64)
""",
    "Tensor.log_softmax log_softmax": f"""\
Returns the logarithm of the softmax of ``input`` along ``dim``.

Computed directly as ``x - max - log(sum(exp(x - max)))``, which is more accurate than
``softmax(...).log()``. Floating point input or ``dtype``, as in ``softmax``.

Args:
{INPUT_SELF}
    dim (int): the dimension of the softmax.
    dtype (genesis.dtype, optional): the dtype to convert ``input`` to first and to return.
        Default: None (the input's dtype).

Returns:
    Tensor: a tensor of the same shape.

Example::

    >>> genesis.log_softmax(genesis.tensor([0.0, 0.0]), 0)
    tensor([-0.6931, -0.6931])
""",
}

"""Docstrings of csrc/python/reduce_composite.cpp: amax/amin/aminmax, logsumexp, nansum/nanmean,
count_nonzero, var_mean/std_mean, norm, diff, and genesis.linalg's norms.
"""

from ._fragments import (
    DIMS_SEQUENCE,
    DTYPE_FLOATING_FIRST,
    INPUT_FLOAT,
    INPUT_TENSOR,
    KEEPDIM_DIMS,
    example,
)


def _extreme(which: str, what: str, reduction: str, *example_lines: str) -> str:
    """genesis.amax and genesis.amin: the ``which`` value over dims."""
    return f"""\
Returns the {which} value over the given dims, without indices (unlike ``{reduction}(dim)``).

Several dims may be reduced at once. NaN propagates, as in ``{reduction}``. A reduced dim of size 0
raises IndexError.

Args:
{INPUT_TENSOR}
    dim (int or sequence of ints): the dims to reduce; ``()`` reduces every dim. Default: ().
{KEEPDIM_DIMS}

Returns:
    Tensor: the {what}, of the input's dtype.

{example(*example_lines)}"""


def _with_mean(what: str, name: str, divisor: str, *example_lines: str) -> str:
    """genesis.var_mean and genesis.std_mean: ``what`` and the mean, as ``(name, mean)``."""
    return f"""\
Returns the {what} and the mean over the given dims, as ``({name}, mean)``.

The variance divides by ``N - correction`` ({divisor}), as ``{name}``.

Args:
{INPUT_FLOAT}
{DIMS_SEQUENCE}
    unbiased (bool, optional): True for correction 1, False for 0. Default: None.
{KEEPDIM_DIMS}
    correction (number, optional): subtracted from N in the divisor. Default: None (1).

Returns:
    tuple of Tensors: ``({name}, mean)``.

{example(*example_lines)}"""


DOCS = {
    "Tensor.amax amax": _extreme(
        "largest",
        "maxima",
        "max",
        ">>> x = genesis.tensor([[1, 5], [7, 2]])",
        ">>> x.amax(), x.amax(0), x.amax(1, keepdim=True).shape",
        "(tensor(7), tensor([7, 5]), genesis.Size([2, 1]))",
    ),
    "Tensor.amin amin": _extreme(
        "smallest",
        "minima",
        "min",
        ">>> genesis.tensor([[1, 5], [7, 2]]).amin((0, 1))",
        "tensor(1)",
    ),
    "Tensor.aminmax aminmax": f"""\
Returns the minimum and the maximum over ``dim`` (every element when None).

Args:
{INPUT_TENSOR}
    dim (int, optional): the dim to reduce. Default: None.
    keepdim (bool): keep the reduced dim with size 1. Default: False.

Returns:
    tuple: a named tuple ``(min, max)``.

Example::

    >>> r = genesis.tensor([[1, 5], [3, 2]]).aminmax(dim=1)
    >>> r.min, r.max
    (tensor([1, 2]), tensor([5, 3]))
""",
    "Tensor.logsumexp logsumexp": f"""\
Returns ``log(sum(exp(x)))`` over the given dims, without overflow.

Computed as ``m + log(sum(exp(x - m)))`` with ``m`` the maximum, so large inputs do not
overflow; all ``-inf`` gives ``-inf``. Integer inputs give the default float dtype.

Args:
{INPUT_TENSOR}
{DIMS_SEQUENCE}
{KEEPDIM_DIMS}

Returns:
    Tensor: the log of the sum of exponentials.

Example::

    >>> genesis.tensor([0.0, 0.0]).logsumexp(0)
    tensor(0.6931)
    >>> 1000 < float(genesis.tensor([1000.0, 1000.0]).logsumexp(0)) < 1001
    True
""",
    "Tensor.nansum nansum": f"""\
Returns the sum over the given dims, NaN counted as zero.

Integer tensors have no NaN: the same as ``sum``.

Args:
{INPUT_TENSOR}
{DIMS_SEQUENCE}
{KEEPDIM_DIMS}
    dtype (genesis.dtype, optional): the dtype to sum in and return. Default: None.

Returns:
    Tensor: the sums.

Example::

    >>> genesis.tensor([1.0, float("nan"), 2.0]).nansum()
    tensor(3.)
""",
    "Tensor.nanmean nanmean": f"""\
Returns the mean over the given dims, NaN elements left out of the sum and the count.

A slice with no number in it gives NaN. The input must be floating point (or ``dtype`` given).

Args:
{INPUT_TENSOR}
{DIMS_SEQUENCE}
{KEEPDIM_DIMS}
    dtype (genesis.dtype, optional): the floating dtype to compute in and return. Default: None.

Returns:
    Tensor: the means.

Example::

    >>> genesis.tensor([1.0, float("nan"), 2.0]).nanmean()
    tensor(1.5000)
""",
    "Tensor.count_nonzero count_nonzero": f"""\
Returns the number of non-zero elements over the given dims.

Args:
{INPUT_TENSOR}
{DIMS_SEQUENCE}

Returns:
    Tensor: int64 counts.

Example::

    >>> genesis.tensor([[0, 1], [2, 0]]).count_nonzero(0)
    tensor([1, 1])
""",
    "var_mean": _with_mean(
        "variance",
        "var",
        "1 by default, the unbiased estimate",
        ">>> genesis.var_mean(genesis.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]), 1)",
        "(tensor([1., 1.]), tensor([1., 4.]))",
    ),
    "std_mean": _with_mean(
        "standard deviation",
        "std",
        "1 by default",
        ">>> genesis.std_mean(genesis.tensor([1.0, 3.0]))",
        "(tensor(1.4142), tensor(2.))",
    ),
    "Tensor.norm norm": f"""\
Returns a norm of the tensor: PyTorch's ``norm``, for floating point tensors.

``p='fro'`` (the default) is the 2-norm of the elements over ``dim`` (every element when None);
a number is the vector p-norm over ``dim`` (``inf``: the largest absolute value, ``0``: the
count of non-zeros); ``'nuc'`` needs singular values and is not supported yet. See
``genesis.linalg.vector_norm`` and ``matrix_norm``.

Args:
{INPUT_FLOAT}
    p (number or str): the order. Default: ``'fro'``.
    dim (int or sequence of ints, optional): the dims to reduce. Default: None.
{KEEPDIM_DIMS}
{DTYPE_FLOATING_FIRST}

Returns:
    Tensor: the norms.

Example::

    >>> x = genesis.tensor([[3.0, -4.0], [0.0, 0.0]])
    >>> x.norm(), x.norm(1), x.norm(float("inf"), dim=1)
    (tensor(5.), tensor(7.), tensor([4., 0.]))
""",
    "Tensor.diff diff": f"""\
Returns the n-th forward difference along ``dim``: ``x[1:] - x[:-1]``, n times.

``prepend`` and ``append`` are joined to the input along ``dim`` first. Bool tensors give
``x[1:] != x[:-1]``, as PyTorch.

Args:
{INPUT_TENSOR}
    n (int): how many times to take the difference. Default: 1.
    dim (int): the dim along which to take it. Default: -1.
    prepend (Tensor, optional): values joined before the input along ``dim``. Default: None.
    append (Tensor, optional): values joined after the input along ``dim``. Default: None.

Returns:
    Tensor: a tensor n elements shorter along ``dim`` (after the joins).

Example::

    >>> x = genesis.tensor([1, 4, 9, 16])
    >>> x.diff(), x.diff(n=2), x.diff(prepend=genesis.tensor([0]))
    (tensor([3, 5, 7]), tensor([2, 2]), tensor([1, 3, 5, 7]))
""",
    "_linalg.vector_norm": f"""\
Returns the vector norm of the elements over ``dim`` (every element when None).

``ord`` 2 is the Euclidean norm (one pass, accumulated in float32 at least), ``inf`` / ``-inf``
the largest / smallest absolute value, ``0`` the count of non-zeros, any other number p
``sum(abs(x)**p)**(1/p)``. The input must be floating point.

Args:
    x (Tensor): a floating point tensor.
    ord (number): the order. Default: 2.
    dim (int or sequence of ints, optional): the dims to reduce. Default: None.
{KEEPDIM_DIMS}
{DTYPE_FLOATING_FIRST}

Returns:
    Tensor: the norms.

Example::

    >>> genesis.linalg.vector_norm(genesis.tensor([3.0, 4.0]))
    tensor(5.)
    >>> genesis.linalg.vector_norm(genesis.tensor([[1.0, -2.0], [3.0, 0.0]]), ord=1, dim=1)
    tensor([3., 3.])
""",
    "_linalg.matrix_norm": f"""\
Returns a matrix norm over the two dims ``dim``.

``'fro'`` is the Frobenius norm; ``1`` / ``-1`` the largest / smallest column sum of absolute
values; ``inf`` / ``-inf`` the largest / smallest row sum; ``2`` / ``-2`` the largest / smallest
singular value and ``'nuc'`` (nuclear) their sum, from ``genesis.linalg.svdvals`` (LAPACK on the
CPU, cuSOLVER on CUDA; float32 and float64). An empty matrix has norm 0, except for ``-2``,
which raises IndexError.

Args:
    A (Tensor): a floating point tensor with at least 2 dims.
    ord (number or str): the order. Default: ``'fro'``.
    dim (pair of ints): the two dims of the matrices. Default: (-2, -1).
{KEEPDIM_DIMS}
{DTYPE_FLOATING_FIRST}

Returns:
    Tensor: the norms, one per matrix.

Example::

    >>> a = genesis.tensor([[1.0, -2.0], [3.0, 4.0]])
    >>> genesis.linalg.matrix_norm(a, 1), genesis.linalg.matrix_norm(a, float("inf"))
    (tensor(6.), tensor(7.))
""",
    "_linalg.norm": f"""\
Returns a vector or matrix norm, as ``torch.linalg.norm``.

With ``dim`` an int, a vector norm over that dim (``vector_norm``); with ``dim`` a pair, a
matrix norm over those dims (``matrix_norm``). Without ``dim``, ``ord`` picks by the input's
dims: a 1-D input gets a vector norm and a 2-D one a matrix norm (other inputs raise
ValueError); without ``ord`` and ``dim`` too, the 2-norm of all elements, for any number of
dims. Orders as in ``vector_norm`` (a number) and ``matrix_norm`` (also ``'fro'``, ``'nuc'``).

Args:
    A (Tensor): a floating point tensor.
    ord (number or str, optional): the order. Default: None (2 for vectors, ``'fro'`` for
        matrices).
    dim (int or pair of ints, optional): the dims to reduce. Default: None.
{KEEPDIM_DIMS}
{DTYPE_FLOATING_FIRST}

Returns:
    Tensor: the norms.

Example::

    >>> a = genesis.tensor([[3.0, 0.0], [0.0, 4.0]])
    >>> genesis.linalg.norm(a), genesis.linalg.norm(a, 2), genesis.linalg.norm(a, dim=1)
    (tensor(5.), tensor(4.), tensor([3., 4.]))
""",
}

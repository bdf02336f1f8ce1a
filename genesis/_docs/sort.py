"""Docstrings of csrc/python/sort.cpp: sorting, selection, unique and binary search."""

from ._fragments import (
    DIM_OPTIONAL,
    INPUT_TENSOR,
    KEEPDIM_DIM,
    OUT_RESULT,
    OUT_VALUES_INDICES,
)

DOCS = {
    "Tensor.sort sort": f"""\
Sorts the items along a dim, returning the sorted values and their original positions.

The sort is always stable: equal items keep their input order (``stable=True`` changes
nothing). Items sort as numbers; -0.0 equals 0.0, and NaNs come after +inf (first when
descending), as in PyTorch. On CUDA the rows are sorted by CUB's radix sort.

Args:
    input (Tensor): the tensor to sort.
    dim (int): the dim to sort along. Default: -1.
    descending (bool): largest first. Default: False.
    stable (bool): accepted for PyTorch's signature; every sort is stable. Default: False.
{OUT_VALUES_INDICES}

Returns:
    (Tensor, Tensor): a named tuple (values, indices); indices are int64.

Example::

    >>> x = genesis.tensor([3.0, 1.0, 2.0, 1.0])
    >>> x.sort()
    sort(values=tensor([1., 1., 2., 3.]), indices=tensor([1, 3, 2, 0]))
    >>> genesis.sort(x, descending=True).indices
    tensor([0, 2, 1, 3])
""",
    "Tensor.argsort argsort": f"""\
Returns the positions that sort the items along a dim (``sort(...).indices``).

Stable, in the order of ``sort``.

Args:
{INPUT_TENSOR}
    dim (int): the dim to sort along. Default: -1.
    descending (bool): largest first. Default: False.
    stable (bool): accepted for PyTorch's signature; every sort is stable. Default: False.

Returns:
    Tensor: int64 positions, of the input's shape.

Example::

    >>> genesis.tensor([[2, 0, 1], [5, 9, 7]]).argsort(dim=1)
    tensor([[1, 2, 0],
            [0, 2, 1]])
""",
    "Tensor.msort msort": """\
Sorts the items along dim 0 in ascending order and returns the values only.

Args:
    input (Tensor): a tensor of at least one dim.

Returns:
    Tensor: the sorted values.

Example::

    >>> genesis.msort(genesis.tensor([[3, 1], [2, 4]]))
    tensor([[2, 1],
            [3, 4]])
""",
    "Tensor.topk topk": f"""\
Returns the ``k`` largest (or smallest) items along a dim and their positions.

The result is always sorted (largest first, or smallest first when ``largest=False``); equal
items come in input order. ``k`` may be 0 up to the dim's size; outside that range raises
RuntimeError.

Args:
{INPUT_TENSOR}
    k (int): how many items to take.
    dim (int): the dim to select along. Default: -1.
    largest (bool): take the largest items, else the smallest. Default: True.
    sorted (bool): accepted for PyTorch's signature; results are always sorted. Default: True.
{OUT_VALUES_INDICES}

Returns:
    (Tensor, Tensor): a named tuple (values, indices).

Example::

    >>> genesis.tensor([1.0, 5.0, 3.0, 4.0]).topk(2)
    topk(values=tensor([5., 4.]), indices=tensor([1, 3]))
""",
    "Tensor.kthvalue kthvalue": f"""\
Returns the ``k``-th smallest item along a dim (``k`` counts from 1) and its position.

Args:
{INPUT_TENSOR}
    k (int): which item, 1 for the smallest.
    dim (int): the dim to select along. Default: -1.
{KEEPDIM_DIM}
{OUT_VALUES_INDICES}

Returns:
    (Tensor, Tensor): a named tuple (values, indices).

Example::

    >>> genesis.tensor([4, 1, 3, 2]).kthvalue(2)
    kthvalue(values=tensor(2), indices=tensor(3))
""",
    "Tensor.median median": f"""\
Returns the median of all items, or the median along a dim with its position.

For an even count it is the lower of the two middle items (no averaging), as in PyTorch. A NaN
makes the median NaN (along a dim: the row's first NaN and its position). Over every item
(``dim=None``) the result is a 0-d tensor; along a dim, a named tuple (values, indices).

Args:
{INPUT_TENSOR}
{DIM_OPTIONAL}
{KEEPDIM_DIM}
    out (Tensor or tuple of two Tensors, optional): where to write the result. Default: None.

Returns:
    Tensor or (Tensor, Tensor): the median, or the named tuple (values, indices).

Example::

    >>> x = genesis.tensor([[1.0, 4.0, 2.0, 3.0], [5.0, 0.0, 9.0, 7.0]])
    >>> x.median()
    tensor(3.)
    >>> x.median(dim=1)
    median(values=tensor([2., 5.]), indices=tensor([2, 0]))
""",
    "Tensor.nanmedian nanmedian": f"""\
Returns the median ignoring NaNs, of all items or along a dim with its position.

Like ``median``, but NaNs are left out; a row of only NaNs gives NaN.

Args:
{INPUT_TENSOR}
{DIM_OPTIONAL}
{KEEPDIM_DIM}
    out (Tensor or tuple of two Tensors, optional): where to write the result. Default: None.

Returns:
    Tensor or (Tensor, Tensor): the median, or the named tuple (values, indices).

Example::

    >>> x = genesis.tensor([2.0, float("nan"), 1.0, 3.0])
    >>> x.median(), x.nanmedian()
    (tensor(nan), tensor(2.))
""",
    "Tensor.mode mode": f"""\
Returns the most frequent value along a dim and the last position it occurs at.

On a tie the smallest of the most frequent values is taken, as in PyTorch. NaNs never equal
each other, so each NaN counts once.

Args:
{INPUT_TENSOR}
    dim (int): the dim to reduce. Default: -1.
{KEEPDIM_DIM}
{OUT_VALUES_INDICES}

Returns:
    (Tensor, Tensor): a named tuple (values, indices).

Example::

    >>> genesis.tensor([2, 1, 2, 1, 3]).mode()
    mode(values=tensor(1), indices=tensor(3))
""",
    "Tensor.quantile quantile": f"""\
Returns the q-th quantiles of the items, over all of them or along a dim.

The quantile sits at rank ``q * (n - 1)`` among the sorted items; ``interpolation`` says how a
rank between two items is read: "linear" (weighted), "lower", "higher", "midpoint" or
"nearest" (half to even). A row holding NaN gives NaN. float32 and float64 inputs; ``q`` is a
number, a sequence or a tensor of the input's dtype with values in [0, 1]. For a 1-d ``q`` the
quantiles are stacked along a new first dim.

Args:
    input (Tensor): a float32 or float64 tensor.
    q (float, sequence or Tensor): the quantiles, in [0, 1].
{DIM_OPTIONAL}
    keepdim (bool): keep the reduced dim(s) with size 1. Default: False.
    interpolation (str): how ranks between items are read. Default: "linear".
{OUT_RESULT}

Returns:
    Tensor: the quantiles.

Example::

    >>> x = genesis.tensor([1.0, 2.0, 3.0, 4.0])
    >>> x.quantile(0.5), x.quantile(genesis.tensor([0.25, 1.0]))
    (tensor(2.5000), tensor([1.7500, 4.0000]))
    >>> x.quantile(0.5, interpolation="lower")
    tensor(2.)
""",
    "Tensor.nanquantile nanquantile": f"""\
Returns the q-th quantiles ignoring NaNs, over all items or along a dim.

Like ``quantile``, but NaNs are left out of each row; a row of only NaNs gives NaN.

Args:
    input (Tensor): a float32 or float64 tensor.
    q (float, sequence or Tensor): the quantiles, in [0, 1].
{DIM_OPTIONAL}
    keepdim (bool): keep the reduced dim(s) with size 1. Default: False.
    interpolation (str): how ranks between items are read. Default: "linear".
{OUT_RESULT}

Returns:
    Tensor: the quantiles.

Example::

    >>> genesis.tensor([1.0, float("nan"), 3.0]).nanquantile(0.5)
    tensor(2.)
""",
    "Tensor.unique unique": f"""\
Returns the distinct values in ascending order, or the distinct slices along a dim.

With ``dim`` the slices along it are compared whole and come out in lexicographic order. NaNs
never equal each other, so each NaN is kept, as in PyTorch. The result is always sorted.

Args:
{INPUT_TENSOR}
    sorted (bool): accepted for PyTorch's signature; the result is always sorted. Default: True.
    return_inverse (bool): also return, for each input item (or slice), the position of its
        value in the result. Default: False.
    return_counts (bool): also return how often each value occurs. Default: False.
    dim (int, optional): compare slices along this dim; None flattens. Default: None.

Returns:
    Tensor or tuple: the values, followed by the inverse and the counts when asked for.

Example::

    >>> x = genesis.tensor([3, 1, 3, 2, 1])
    >>> x.unique()
    tensor([1, 2, 3])
    >>> genesis.unique(x, return_inverse=True, return_counts=True)
    (tensor([1, 2, 3]), tensor([2, 0, 2, 1, 0]), tensor([2, 1, 2]))
    >>> genesis.tensor([[1, 2], [0, 5], [1, 2]]).unique(dim=0)
    tensor([[0, 5],
            [1, 2]])
""",
    "Tensor.unique_consecutive unique_consecutive": f"""\
Collapses each run of equal neighbours into one item, without sorting.

Args:
{INPUT_TENSOR}
    return_inverse (bool): also return, for each input item (or slice), the position of its run
        in the result. Default: False.
    return_counts (bool): also return the length of each run. Default: False.
    dim (int, optional): compare slices along this dim; None flattens. Default: None.

Returns:
    Tensor or tuple: the values, followed by the inverse and the counts when asked for.

Example::

    >>> genesis.tensor([1, 1, 2, 2, 3, 1]).unique_consecutive(return_counts=True)
    (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 1]))
""",
    "searchsorted": f"""\
Finds where values would be inserted into a sorted sequence to keep it sorted.

For each value, the first position whose item is not less than it (``right=False``), or
greater than it (``right=True`` or ``side="right"``). The sequence is 1-d, or has the values'
leading dims with one sorted row each. As in PyTorch, a NaN value is placed after every item
and a NaN in the sequence is passed over.
Both inputs are compared in their promoted dtype.

Args:
    sorted_sequence (Tensor): ascending rows (or any rows, with ``sorter``).
    input (Tensor or number): the values to place.
    out_int32 (bool): return int32 positions instead of int64. Default: False.
    right (bool): place after equal items. Default: False.
    side (str, optional): "left" or "right", the same as ``right``. Default: None.
    sorter (Tensor, optional): int64 positions that sort each row of the sequence. Default: None.
{OUT_RESULT}

Returns:
    Tensor: the positions, of the values' shape.

Example::

    >>> seq = genesis.tensor([1, 3, 5, 7])
    >>> genesis.searchsorted(seq, genesis.tensor([3, 6, 9]))
    tensor([1, 3, 4])
    >>> genesis.searchsorted(seq, 3, right=True)
    tensor(2)
""",
    "bucketize": f"""\
Returns the bucket each item falls in, given 1-d ascending boundaries.

``bucketize(input, boundaries)`` is ``searchsorted(boundaries, input)``: with ``right=False`` an
item equal to a boundary goes in the bucket that boundary closes.

Args:
    input (Tensor or number): the items.
    boundaries (Tensor): 1-d, ascending.
    out_int32 (bool): return int32 positions instead of int64. Default: False.
    right (bool): an item equal to a boundary goes in the next bucket. Default: False.
{OUT_RESULT}

Returns:
    Tensor: the bucket positions, of the input's shape.

Example::

    >>> genesis.bucketize(genesis.tensor([0.5, 1.0, 2.5]), genesis.tensor([1.0, 2.0]))
    tensor([0, 0, 2])
""",
}

"""Docstrings of the scatter and index reductions bound in csrc/python/index_reduce.cpp."""

from ._fragments import (
    ACCUMULATE,
    DIM_SCATTER,
    INDEX_1D,
    INDEX_INT64,
    INPUT_DESTINATION,
    RETURNS_NEW,
    RETURNS_SELF,
)

DOCS = {
    "Tensor.scatter_add scatter_add": f"""\
A copy of ``input`` with every value of ``src`` added at ``index`` along ``dim``:
``out[index[i][j]][j] += src[i][j]`` for ``dim=0``. Unlike ``scatter``, duplicate indices all
count. ``index`` has ``input``'s number of dims and is no larger than ``src`` in any dim, nor
than ``input`` in any dim but ``dim``; only the leading block of ``src`` of ``index``'s shape is
read. Negative indices count from the end; out-of-range ones raise IndexError (on CUDA at the
next wait, the tensor unchanged). On the CPU the values are added in row-major order; on CUDA
with atomic additions, so float sums may differ in their last bits between runs, as PyTorch
documents.

Args:
{INPUT_DESTINATION}
{DIM_SCATTER}
{INDEX_INT64}
    src (Tensor): the values, of ``input``'s dtype.
    out (Tensor, optional): keyword-only tensor to write the result into (same device and
        shape; the result dtype must cast to its dtype). Default: None (a new tensor).

{RETURNS_NEW}

Example::

    >>> genesis.zeros(3).scatter_add(0, genesis.tensor([0, 2, 0]), genesis.tensor([1.0, 2.0, 3.0]))
    tensor([4., 0., 2.])
""",
    "Tensor.scatter_add_": f"""\
The in-place ``scatter_add``: adds every value of ``src`` into this tensor at ``index``
along ``dim``; returns this tensor.

Args:
{DIM_SCATTER}
{INDEX_INT64}
    src (Tensor): the values, of this tensor's dtype.

{RETURNS_SELF}

Example::

    >>> x = genesis.ones(2, 2)
    >>> x.scatter_add_(1, genesis.tensor([[1, 1], [0, 1]]), genesis.ones(2, 2))
    tensor([[1., 3.],
            [2., 2.]])
""",
    "Tensor.scatter_reduce scatter_reduce": f"""\
A copy of ``input`` with the values of ``src`` reduced into it at ``index`` along ``dim``, with
``reduce`` one of ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``. Every value counts,
duplicates included. With ``include_self`` the element's own value takes part; without, only
the values scattered to it (elements no index names keep their value). ``"mean"`` divides by
the count (with floor for integer tensors, as PyTorch); ``"amax"``/``"amin"`` propagate NaN.
Shapes and indices are checked as in ``scatter_add``.

Args:
{INPUT_DESTINATION}
{DIM_SCATTER}
{INDEX_INT64}
    src (Tensor): the values, of ``input``'s dtype.
    reduce (str): ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
    include_self (bool, optional): keyword-only; whether ``input``'s values take part.
        Default: True.
    out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

{RETURNS_NEW}

Example::

    >>> x = genesis.tensor([1.0, 2.0, 3.0])
    >>> i = genesis.tensor([0, 0, 2, 2])
    >>> s = genesis.tensor([5.0, 6.0, 7.0, 8.0])
    >>> x.scatter_reduce(0, i, s, "amax")
    tensor([6., 2., 8.])
    >>> x.scatter_reduce(0, i, s, "mean", include_self=False)
    tensor([5.5000, 2.0000, 7.5000])
""",
    "Tensor.scatter_reduce_": f"""\
The in-place ``scatter_reduce``; returns this tensor.

Args:
{DIM_SCATTER}
{INDEX_INT64}
    src (Tensor): the values, of this tensor's dtype.
    reduce (str): ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
    include_self (bool, optional): keyword-only; whether this tensor's values take part.
        Default: True.

{RETURNS_SELF}

Example::

    >>> x = genesis.tensor([2, 3])
    >>> x.scatter_reduce_(0, genesis.tensor([1, 1]), genesis.tensor([4, 5]), "prod")
    tensor([ 2, 60])
""",
    "Tensor.index_add index_add": f"""\
A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim``: for ``dim=0``,
``out[index[i]] += alpha * source[i]``. Duplicate indices all count. ``source`` has
``input``'s shape except at ``dim``, where it has ``len(index)`` entries. Out-of-range indices
raise IndexError; negative ones count from the end. On CUDA float sums may differ in their last
bits between runs (atomic additions), as PyTorch documents.

Args:
{INPUT_DESTINATION}
    dim (int): the dim to add along.
{INDEX_1D}
    source (Tensor): the slices to add, of ``input``'s dtype.
    alpha (Number, optional): keyword-only factor of ``source`` (converted to ``input``'s dtype).
        Default: 1.
    out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

{RETURNS_NEW}

Example::

    >>> x = genesis.zeros(3, 2)
    >>> genesis.index_add(x, 0, genesis.tensor([2, 0, 2]), genesis.ones(3, 2), alpha=2)
    tensor([[2., 2.],
            [0., 0.],
            [4., 4.]])
""",
    "Tensor.index_add_": f"""\
The in-place ``index_add``; returns this tensor.

Args:
    dim (int): the dim to add along.
{INDEX_1D}
    source (Tensor): the slices to add, of this tensor's dtype.
    alpha (Number, optional): keyword-only factor of ``source``. Default: 1.

{RETURNS_SELF}

Example::

    >>> genesis.zeros(3).index_add_(0, genesis.tensor([1, 1]), genesis.tensor([1.0, 2.0]))
    tensor([0., 3., 0.])
""",
    "Tensor.index_reduce index_reduce": f"""\
A copy of ``input`` with the slices of ``source`` reduced into it at ``index`` along ``dim``,
with ``reduce`` one of ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"`` (as ``index_add`` is the
sum). ``include_self`` and ``"mean"`` work as in ``scatter_reduce``; PyTorch marks this function
beta.

Args:
{INPUT_DESTINATION}
    dim (int): the dim to reduce along.
{INDEX_1D}
    source (Tensor): the slices, of ``input``'s dtype, ``len(index)`` entries at ``dim``.
    reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
    include_self (bool, optional): keyword-only; whether ``input``'s values take part.
        Default: True.
    out (Tensor, optional): keyword-only tensor to write the result into. Default: None.

{RETURNS_NEW}

Example::

    >>> x = genesis.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.index_reduce(0, genesis.tensor([1, 1]), genesis.tensor([[5.0, 0.0], [1.0, 9.0]]), "amax")
    tensor([[1., 2.],
            [5., 9.]])
""",
    "Tensor.index_reduce_": f"""\
The in-place ``index_reduce``; returns this tensor.

Args:
    dim (int): the dim to reduce along.
{INDEX_1D}
    source (Tensor): the slices, of this tensor's dtype.
    reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
    include_self (bool, optional): keyword-only; whether this tensor's values take part.
        Default: True.

{RETURNS_SELF}

Example::

    >>> x = genesis.tensor([2.0, 3.0])
    >>> x.index_reduce_(0, genesis.tensor([0, 0]), genesis.tensor([4.0, 6.0]), "mean", include_self=False)
    tensor([5., 3.])
""",
    "Tensor.put put": f"""\
A copy of ``input`` with the values of ``source`` written at ``index``, ``input`` seen as 1-d
(``out.reshape(-1)[index] = source``). ``index`` is an int64 tensor of any shape and ``source``
has as many elements. With ``accumulate`` the values are added instead, duplicate indices all
counting; without, duplicates keep one of their values (which is undefined, as in PyTorch).
Negative indices count from the end; out-of-range ones raise IndexError.

Args:
{INPUT_DESTINATION}
    index (Tensor): int64 indices into the flattened tensor.
    source (Tensor): the values, of ``input``'s dtype.
{ACCUMULATE}

{RETURNS_NEW}

Example::

    >>> x = genesis.zeros(2, 2)
    >>> genesis.put(x, genesis.tensor([3, 0, 3]), genesis.tensor([1.0, 2.0, 3.0]), accumulate=True)
    tensor([[2., 0.],
            [0., 4.]])
""",
    "Tensor.put_": f"""\
The in-place ``put``: writes (or with ``accumulate`` adds) the values of ``source`` at
``index`` into this tensor seen as 1-d; returns this tensor.

Args:
    index (Tensor): int64 indices into the flattened tensor.
    source (Tensor): the values, of this tensor's dtype.
{ACCUMULATE}

{RETURNS_SELF}

Example::

    >>> genesis.zeros(3).put_(genesis.tensor([-1]), genesis.tensor([7.0]))
    tensor([0., 0., 7.])
""",
    "Tensor.index_put index_put": f"""\
A copy of ``input`` with ``values`` written at ``indices``: ``out[indices] = values``, one index
tensor per leading dim (int64, int32, or bool and uint8 masks), ``values`` broadcast to the
indexed shape. With ``accumulate`` the values are added instead, duplicate indices all
counting; without, duplicates keep one of their values (undefined, as in PyTorch). Index
checks and errors are those of ``x[indices] = values``.

Args:
{INPUT_DESTINATION}
    indices (tuple of Tensor): the index tensors.
    values (Tensor): the values, of ``input``'s dtype.
{ACCUMULATE}

{RETURNS_NEW}

Example::

    >>> x = genesis.zeros(2, 3)
    >>> i, j = genesis.tensor([0, 0, 1]), genesis.tensor([2, 2, 0])
    >>> genesis.index_put(x, (i, j), genesis.tensor([1.0, 2.0, 3.0]), accumulate=True)
    tensor([[0., 0., 3.],
            [3., 0., 0.]])
""",
    "Tensor.index_put_": f"""\
The in-place ``index_put``: ``self[indices] = values`` (or ``+=`` every value with
``accumulate``); returns this tensor.

Args:
    indices (tuple of Tensor): the index tensors.
    values (Tensor): the values, of this tensor's dtype.
{ACCUMULATE}

{RETURNS_SELF}

Example::

    >>> genesis.zeros(3).index_put_((genesis.tensor([1, 1]),), genesis.tensor(2.0), True)
    tensor([0., 4., 0.])
""",
}

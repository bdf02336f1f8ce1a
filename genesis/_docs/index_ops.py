"""Docstrings of the indexing ops bound in csrc/python/index_ops.cpp (index_select, gather,
masked_*, scatter, nonzero ...)."""

from ._fragments import (
    DIM_INDEX,
    DIM_SCATTER,
    INDEX_1D,
    INDEX_1D_INT64,
    INDEX_INT64,
    INPUT_DESTINATION,
    INPUT_SELF,
    INPUT_SOURCE,
    OUT_CAST,
    RETURNS_NEW,
    RETURNS_SELF,
)

DOCS = {
    "Tensor.index_select index_select": f"""\
Selects the entries of ``input`` at ``index`` along ``dim`` (``x[:, ..., index]`` with ``index`` at
``dim``). Out-of-range indices raise IndexError (on CUDA at the next wait, as for ``x[i]``).

Args:
{INPUT_SELF}
    dim (int): the dim to select along.
{INDEX_1D}
{OUT_CAST}

Returns:
    Tensor: a new tensor; ``dim`` has ``len(index)`` entries.

Example::

    >>> x = genesis.arange(6).reshape(2, 3)
    >>> genesis.index_select(x, 1, genesis.tensor([2, 0]))
    tensor([[2, 0],
            [5, 3]])
""",
    "Tensor.gather gather": f"""\
Gathers values along ``dim``: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` and
``out[i][j] = input[i][index[i][j]]`` for ``dim=1``. ``index`` has as many dims as ``input``
and is no larger than it in the other dims; the result has ``index``'s shape.

Args:
{INPUT_SOURCE}
    dim (int): the dim to gather along.
{INDEX_INT64}
    sparse_grad (bool, optional): keyword-only, accepted for PyTorch's signature (no autograd yet). Default: False.
{OUT_CAST}

Returns:
    Tensor: a new tensor of ``index``'s shape.

Example::

    >>> x = genesis.tensor([[1, 2], [3, 4]])
    >>> genesis.gather(x, 1, genesis.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
""",
    "Tensor.take_along_dim take_along_dim": f"""\
Like ``gather``, with ``input`` and ``indices`` broadcast in the dims other than ``dim`` (as
``numpy.take_along_axis``); without ``dim`` both are flattened.

Args:
{INPUT_SOURCE}
    indices (Tensor): int64 indices.
    dim (int, optional): the dim to take along. Default: None (flattened).
{OUT_CAST}

{RETURNS_NEW}

Example::

    >>> x = genesis.tensor([[10, 30, 20], [60, 40, 50]])
    >>> genesis.take_along_dim(x, x.argmax(1, keepdim=True), dim=1)
    tensor([[30],
            [60]])
""",
    "Tensor.take take": f"""\
Treats ``input`` as 1-d and takes the elements at ``index``; the result has ``index``'s
shape.

Args:
{INPUT_SOURCE}
{INDEX_INT64}

Returns:
    Tensor: a new tensor of ``index``'s shape.

Example::

    >>> genesis.take(genesis.tensor([[4, 3], [5, 7]]), genesis.tensor([0, 3]))
    tensor([4, 7])
""",
    "Tensor.masked_select masked_select": f"""\
The elements of ``input`` where the bool ``mask`` is True, as a 1-d tensor in row-major order;
``input`` and ``mask`` broadcast together. The size depends on the data, so on CUDA it waits
once for the count.

Args:
{INPUT_SOURCE}
    mask (Tensor): a bool tensor.
{OUT_CAST}

Returns:
    Tensor: a new 1-d tensor.

Example::

    >>> x = genesis.tensor([[1, -2], [-3, 4]])
    >>> genesis.masked_select(x, x > 0)
    tensor([1, 4])
""",
    "Tensor.masked_fill masked_fill": f"""\
A copy of ``input`` with ``value`` where the bool ``mask`` is True (``mask`` broadcasts to
``input``'s shape). ``value`` is a number or a 0-d tensor, converted to ``input``'s dtype.

Args:
{INPUT_SOURCE}
    mask (Tensor): a bool tensor.
    value (Number or Tensor): the value to write.

{RETURNS_NEW}

Example::

    >>> x = genesis.tensor([1.0, 2.0, 3.0])
    >>> x.masked_fill(x > 1.5, 0.0)
    tensor([1., 0., 0.])
""",
    "Tensor.masked_fill_": f"""\
Writes ``value`` where the bool ``mask`` is True and returns this tensor. A number fills the
masked positions in one pass without waiting for the device; a 0-d tensor value is read on the
host first (one wait on CUDA), so it is checked to fit the dtype as a number is.

Args:
    mask (Tensor): a bool tensor that broadcasts to this tensor's shape.
    value (Number or Tensor): the value to write.

{RETURNS_SELF}

Example::

    >>> genesis.tensor([1, 2, 3]).masked_fill_(genesis.tensor([True, False, True]), -1)
    tensor([-1,  2, -1])
""",
    "Tensor.masked_scatter masked_scatter": f"""\
A copy of ``input`` with the positions where ``mask`` is True filled, in row-major order, by
the leading elements of ``source`` (which needs at least as many elements as the mask selects;
on CUDA the count is read once).

Args:
{INPUT_DESTINATION}
    mask (Tensor): a bool tensor that broadcasts to ``input``'s shape.
    source (Tensor): the values, of ``input``'s dtype.

{RETURNS_NEW}

Example::

    >>> x = genesis.zeros(4)
    >>> x.masked_scatter(genesis.tensor([True, False, True, True]), genesis.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([1., 0., 2., 3.])
""",
    "Tensor.masked_scatter_": f"""\
The in-place ``masked_scatter``; returns this tensor.

Args:
    mask (Tensor): a bool tensor.
    source (Tensor): the values.

{RETURNS_SELF}

Example::

    >>> genesis.zeros(3).masked_scatter_(genesis.tensor([False, True, True]), genesis.tensor([7.0, 8.0]))
    tensor([0., 7., 8.])
""",
    "Tensor.index_fill index_fill": f"""\
A copy of ``input`` with ``value`` written at ``index`` along ``dim``.

Args:
{INPUT_SOURCE}
{DIM_INDEX}
{INDEX_1D_INT64}
    value (Number or Tensor): a number or a 0-d tensor.

{RETURNS_NEW}

Example::

    >>> genesis.zeros(2, 3).index_fill(1, genesis.tensor([0, 2]), 5.0)
    tensor([[5., 0., 5.],
            [5., 0., 5.]])
""",
    "Tensor.index_fill_": f"""\
The in-place ``index_fill``; returns this tensor.

Args:
{DIM_INDEX}
{INDEX_1D_INT64}
    value (Number or Tensor): the value.

{RETURNS_SELF}

Example::

    >>> genesis.zeros(3, dtype=genesis.int64).index_fill_(0, genesis.tensor([1]), 9)
    tensor([0, 9, 0])
""",
    "Tensor.index_copy index_copy": f"""\
A copy of ``input`` with the slices of ``source`` written at ``index`` along ``dim``:
``out[..., index[k], ...] = source[..., k, ...]``. ``source`` has ``input``'s dtype and shape
but ``len(index)`` entries in ``dim``; with duplicate indices one of the slices is kept.

Args:
{INPUT_DESTINATION}
{DIM_INDEX}
{INDEX_1D_INT64}
    source (Tensor): the slices.

{RETURNS_NEW}

Example::

    >>> genesis.zeros(3, 2).index_copy(0, genesis.tensor([2, 0]), genesis.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[3., 4.],
            [0., 0.],
            [1., 2.]])
""",
    "Tensor.index_copy_": f"""\
The in-place ``index_copy``; returns this tensor.

Args:
{DIM_INDEX}
{INDEX_1D_INT64}
    source (Tensor): the slices.

{RETURNS_SELF}

Example::

    >>> genesis.zeros(3).index_copy_(0, genesis.tensor([1]), genesis.tensor([5.0]))
    tensor([0., 5., 0.])
""",
    "Tensor.scatter scatter": f"""\
A copy of ``input`` with ``src`` written at ``index`` along ``dim``, the inverse of ``gather``:
``out[index[i][j]][j] = src[i][j]`` for ``dim=0``. ``src`` is a tensor of ``input``'s dtype
(only its leading block of ``index``'s shape is read) or a number. With duplicate indices one of
the values is kept, as PyTorch documents. With ``reduce="add"`` or ``reduce="multiply"`` every
value is added to (multiplied into) its element instead, duplicates included (as
``scatter_add`` and ``scatter_reduce``; PyTorch deprecates this form for tensor sources in favour
of ``scatter_reduce``).

Args:
{INPUT_DESTINATION}
{DIM_SCATTER}
{INDEX_INT64}
    src (Tensor or Number): the values.
    reduce (str, optional): keyword-only; None (write), ``"add"`` or ``"multiply"``
        (accumulate). Default: None.

{RETURNS_NEW}

Example::

    >>> genesis.zeros(2, 3).scatter(1, genesis.tensor([[2], [0]]), genesis.tensor([[5.0], [6.0]]))
    tensor([[0., 0., 5.],
            [6., 0., 0.]])
""",
    "Tensor.scatter_": f"""\
The in-place ``scatter``; returns this tensor.

Args:
{DIM_SCATTER}
{INDEX_INT64}
    src (Tensor or Number): the values.
    reduce (str, optional): keyword-only; None (write), ``"add"`` or ``"multiply"``
        (accumulate). Default: None.

{RETURNS_SELF}

Example::

    >>> genesis.zeros(4).scatter_(0, genesis.tensor([3, 1]), 1.0)
    tensor([0., 1., 0., 1.])
""",
    "Tensor.nonzero nonzero": """\
The indices of the nonzero (True) elements in row-major order: a ``(count, ndim)`` int64
tensor, or with ``as_tuple=True`` a tuple of ``ndim`` 1-d tensors (a 0-d input counts as
1-d). The count depends on the data, so on CUDA it waits once.

Args:
    input (Tensor): the tensor (``self`` for the method).
    as_tuple (bool, optional): keyword-only; return one tensor per dim. Default: False.

Returns:
    Tensor or tuple of Tensors: the indices.

Example::

    >>> x = genesis.tensor([[0, 3], [5, 0]])
    >>> genesis.nonzero(x)
    tensor([[0, 1],
            [1, 0]])
    >>> x.nonzero(as_tuple=True)
    (tensor([0, 1]), tensor([1, 0]))
""",
    "Tensor.argwhere argwhere": """\
The indices of the nonzero elements as a ``(count, ndim)`` int64 tensor (``nonzero``).

Args:
    input (Tensor): the tensor (``self`` for the method).

Returns:
    Tensor: the indices.

Example::

    >>> genesis.argwhere(genesis.tensor([0.0, 1.5, 0.0, 2.0]))
    tensor([[1],
            [3]])
""",
}

"""Docstrings of the shape and rearrangement ops (csrc/python/shape_ops.cpp). A function form
(genesis.chunk(input, ...)) reuses its method's text with an ``input`` entry (function_form)."""

from ._fragments import (
    DIM_SPLIT,
    INPUT_TENSOR,
    RETURNS_CONTIGUOUS,
    RETURNS_NEW,
    RETURNS_SAME_SHAPE_DTYPE,
    TENSORS,
    example,
    function_form,
)

CHUNK = f"""\
Splits the tensor into at most ``chunks`` views of equal size along ``dim``.

Each piece has ``ceil(size / chunks)`` elements along ``dim`` except the last; when the size is
too small there are fewer than ``chunks`` pieces, as in PyTorch (``tensor_split`` always gives
exactly the number asked for).

Args:
    chunks (int): the most pieces to return; must be positive.
{DIM_SPLIT}

Returns:
    tuple of Tensors: the pieces, views of the tensor.

Example::

    >>> genesis.arange(5).chunk(3)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    >>> len(genesis.arange(6).chunk(4))
    3
"""

TENSOR_SPLIT = f"""\
Splits the tensor into views along ``dim``, by a number of sections or at indices.

An int ``n`` gives exactly ``n`` pieces, the first ``size % n`` of them one element longer
(NumPy's ``array_split``). A sequence of indices (or a 1-d int64 tensor) splits before each
index, each range clamped as a Python slice is; a 0-d int64 tensor counts as sections.

Args:
    indices_or_sections (int, sequence of ints or Tensor): the number of pieces, or where to
        split.
{DIM_SPLIT}

Returns:
    tuple of Tensors: the pieces, views of the tensor.

Example::

    >>> x = genesis.arange(7)
    >>> [p.tolist() for p in x.tensor_split(3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> [p.tolist() for p in x.tensor_split([1, 5])]
    [[0], [1, 2, 3, 4], [5, 6]]
"""

UNBIND = """\
Removes dimension ``dim`` and returns every slice along it.

Args:
    dim (int): the dimension to remove. Default: 0.

Returns:
    tuple of Tensors: ``select(dim, i)`` for each ``i``, views of the tensor.

Example::

    >>> genesis.arange(6).view(2, 3).unbind(1)
    (tensor([0, 3]), tensor([1, 4]), tensor([2, 5]))
"""

MOVEDIM = """\
Moves dimensions to new positions; the other dimensions keep their order.

``movedim`` and ``moveaxis`` are the same. The result is a view.

Args:
    source (int or sequence of ints): the dimensions to move.
    destination (int or sequence of ints): where they go, one for each of ``source``.

Returns:
    Tensor: a view with the dimensions moved.

Example::

    >>> x = genesis.zeros(2, 3, 4)
    >>> x.movedim(0, -1).shape
    genesis.Size([3, 4, 2])
    >>> genesis.movedim(x, (0, 1), (2, 0)).shape
    genesis.Size([3, 4, 2])
"""

SWAPAXES = """\
Swaps two dimensions (NumPy's name for ``transpose(dim0, dim1)``).

Args:
    axis0 (int): one dimension.
    axis1 (int): the other.

Returns:
    Tensor: a view with the two dimensions swapped.

Example::

    >>> genesis.zeros(2, 3, 4).swapaxes(0, 2).shape
    genesis.Size([4, 3, 2])
"""

SWAPDIMS = """\
Swaps two dimensions; the same as ``transpose(dim0, dim1)``.

Args:
    dim0 (int): one dimension.
    dim1 (int): the other.

Returns:
    Tensor: a view with the two dimensions swapped.

Example::

    >>> genesis.zeros(2, 3).swapdims(0, 1).shape
    genesis.Size([3, 2])
"""

UNFLATTEN = """\
Splits dimension ``dim`` into several with the given sizes.

The sizes must multiply to the size of ``dim``; one of them may be -1, inferred. The result
is a view.

Args:
    dim (int): the dimension to split.
    sizes (sequence of ints): the new sizes.

Returns:
    Tensor: a view with ``dim`` replaced by ``len(sizes)`` dimensions.

Example::

    >>> genesis.zeros(2, 12).unflatten(1, (3, -1)).shape
    genesis.Size([2, 3, 4])
"""

DIAGONAL = """\
Returns the diagonal of the planes spanned by ``dim1`` and ``dim2`` as a view.

``offset`` 0 is the main diagonal, positive offsets lie above it and negative ones below. The
two dimensions go and the diagonal becomes the last dimension; an offset past the edge gives
an empty diagonal.

Args:
    offset (int): which diagonal. Default: 0.
    dim1 (int): the first dimension of the planes. Default: 0.
    dim2 (int): the second dimension of the planes. Default: 1.

Returns:
    Tensor: a view of the diagonal elements.

Example::

    >>> x = genesis.arange(9).view(3, 3)
    >>> x.diagonal()
    tensor([0, 4, 8])
    >>> x.diagonal(1), x.diagonal(-2)
    (tensor([1, 5]), tensor([6]))
"""

BROADCAST_TO = """\
Returns a view of the tensor broadcast to ``size`` (``expand`` with NumPy's name).

Args:
    size (sequence of ints): the target shape; -1 keeps a dimension's size.

Returns:
    Tensor: a view with stride 0 along the broadcast dimensions.

Example::

    >>> genesis.tensor([1, 2, 3]).broadcast_to((2, 3))
    tensor([[1, 2, 3],
            [1, 2, 3]])
"""

FLIPLR = f"""\
Reverses the order of columns: ``flip(1)`` of a tensor with at least 2 dimensions.

{RETURNS_NEW}

Example::

    >>> genesis.arange(4).view(2, 2).fliplr()
    tensor([[1, 0],
            [3, 2]])
"""

FLIPUD = f"""\
Reverses the order of rows: ``flip(0)`` of a tensor with at least 1 dimension.

{RETURNS_NEW}

Example::

    >>> genesis.arange(4).view(2, 2).flipud()
    tensor([[2, 3],
            [0, 1]])
"""

ROLL = f"""\
Shifts elements along dimensions, the ones that fall off the end coming back at the start.

With ``dims`` None, the flattened tensor is rolled by one shift and the shape restored.

Args:
    shifts (int or sequence of ints): the shift for each of ``dims``; negative shifts go left.
    dims (int or sequence of ints, optional): the dimensions to roll. Default: None.

{RETURNS_NEW}

Example::

    >>> genesis.arange(5).roll(2)
    tensor([3, 4, 0, 1, 2])
    >>> genesis.arange(6).view(2, 3).roll((1, -1), (0, 1))
    tensor([[4, 5, 3],
            [1, 2, 0]])
"""

TRIL = f"""\
Returns the lower triangle of each matrix (the last two dims), the rest set to 0.

Elements on diagonal ``diagonal`` and below it are kept: 0 is the main diagonal, positive values
keep more (diagonals above it), negative values fewer.

Args:
    diagonal (int): the last diagonal kept. Default: 0.

{RETURNS_SAME_SHAPE_DTYPE}

Example::

    >>> x = genesis.ones(3, 3, dtype=genesis.int32)
    >>> x.tril()
    tensor([[1, 0, 0],
            [1, 1, 0],
            [1, 1, 1]], dtype=genesis.int32)
    >>> x.tril(-1).sum().item()
    3
"""

TRIU = f"""\
Returns the upper triangle of each matrix (the last two dims), the rest set to 0.

Elements on diagonal ``diagonal`` and above it are kept: 0 is the main diagonal, positive values
keep fewer, negative values more.

Args:
    diagonal (int): the first diagonal kept. Default: 0.

{RETURNS_SAME_SHAPE_DTYPE}

Example::

    >>> genesis.arange(1, 10).view(3, 3).triu(1)
    tensor([[0, 2, 3],
            [0, 0, 6],
            [0, 0, 0]])
"""

DIAG = f"""\
A 1-d tensor becomes a matrix with it on a diagonal; a 2-d tensor gives its diagonal.

For a 1-d tensor of n elements the result is a square matrix of side n + abs(diagonal), zero
off that diagonal. For a matrix the result is a copy of the diagonal (``diagonal()`` is the
view).

Args:
    diagonal (int): which diagonal: 0 the main one, above it positive, below negative.
        Default: 0.

{RETURNS_NEW}

Example::

    >>> genesis.tensor([1, 2]).diag()
    tensor([[1, 0],
            [0, 2]])
    >>> genesis.arange(9).view(3, 3).diag(-1)
    tensor([3, 7])
"""

DIAG_EMBED = """\
Places each vector along the last dim on a diagonal of two new dims ``dim1`` x ``dim2``.

The new dims have size n + abs(offset) for vectors of n elements; everything off the diagonal
is 0. ``dim1`` and ``dim2`` index the result's dims.

Args:
    offset (int): which diagonal. Default: 0.
    dim1 (int): the first new dim. Default: -2.
    dim2 (int): the second new dim. Default: -1.

Returns:
    Tensor: a new tensor with one more dim.

Example::

    >>> genesis.tensor([[1, 2], [3, 4]]).diag_embed().shape
    genesis.Size([2, 2, 2])
    >>> genesis.tensor([[1, 2], [3, 4]]).diag_embed()[1]
    tensor([[3, 0],
            [0, 4]])
"""

TILE = f"""\
NumPy's tile: ``repeat``, where fewer ``dims`` than the tensor's dims mean leading 1s.

Args:
    dims (sequence of ints): the repeats per dim.

{RETURNS_CONTIGUOUS}

Example::

    >>> genesis.tensor([[1, 2]]).tile((2,))
    tensor([[1, 2, 1, 2]])
"""

REPEAT_INTERLEAVE = f"""\
Repeats each element ``repeats`` times along ``dim`` (NumPy's ``repeat``).

Without ``dim`` the tensor is flattened first. ``repeats`` is an int (or a one-element
tensor); a tensor of per-element repeats is not supported yet.

Args:
    repeats (int): how often each element appears.
    dim (int, optional): the dim to repeat along. Default: None (flattened).

{RETURNS_CONTIGUOUS}

Example::

    >>> genesis.tensor([1, 2, 3]).repeat_interleave(2)
    tensor([1, 1, 2, 2, 3, 3])
    >>> genesis.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0).shape
    genesis.Size([4, 2])
"""

_TENSORS_ONE_OR_MORE = """\
Args:
    *tensors (Tensor): one tensor, several, or one sequence of them.

Returns:
    Tensor or tuple of Tensors: a tensor for one tensor, else a tuple."""


def _triangle_(part: str, which: str, function: str, *example_lines: str) -> str:
    """Tensor.tril_ and Tensor.triu_: keep the ``part`` triangle in place."""
    return f"""\
In place: keeps the {part} triangle of each matrix and sets the rest to 0 (see ``{function}``).

Args:
    diagonal (int): the {which} diagonal kept. Default: 0.

Returns:
    Tensor: the tensor itself, modified in place.

{example(*example_lines)}"""


def _triangle_indices(part: str, which: str, function: str, *example_lines: str) -> str:
    """genesis.tril_indices and genesis.triu_indices."""
    return f"""\
Returns the indices of the {part} triangle of a ``row`` x ``col`` matrix.

The result is a 2 x N tensor: the row indices, then the column indices, in row-major order.
``offset`` moves the {which} diagonal included, as ``{function}``'s ``diagonal`` does.

Args:
    row (int): the number of rows.
    col (int): the number of columns.
    offset (int): the {which} diagonal included. Default: 0.
    dtype (genesis.dtype, optional): int64 or int32. Default: None (int64).
    device (genesis.device, optional): where the result goes. Default: None (the CPU).

Returns:
    Tensor: a 2 x N index tensor.

{example(*example_lines)}"""


def _stack(summary: str, *example_lines: str) -> str:
    """genesis.hstack, vstack, dstack and column_stack: ``summary``, the Args, one example."""
    return f"""\
{summary}

Args:
{TENSORS}

{RETURNS_NEW}

{example(*example_lines)}"""


DOCS = {
    "split": f"""\
Splits a tensor into views along ``dim``: pieces of one size, or of the given sizes.

With an int, every piece has ``split_size_or_sections`` elements along ``dim`` except the last,
which holds what is left. With a list, the pieces have those sizes, which must add up to the
size of ``dim``. Every piece is a view of ``tensor``.

Args:
    tensor (Tensor): the tensor to split.
    split_size_or_sections (int or sequence of ints): the size of each piece, or the sizes.
{DIM_SPLIT}

Returns:
    tuple of Tensors: the pieces, in order.

Example::

    >>> x = genesis.arange(5)
    >>> genesis.split(x, 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    >>> [p.shape for p in genesis.split(genesis.zeros(2, 5), [1, 4], dim=1)]
    [genesis.Size([2, 1]), genesis.Size([2, 4])]
""",
    "Tensor.split": f"""\
Splits the tensor into views along ``dim``: pieces of one size, or of the given sizes.

See ``genesis.split``: an int gives pieces of that size (the last one smaller when the size
does not divide), a list gives pieces of those sizes.

Args:
    split_size (int or sequence of ints): the size of each piece, or the sizes.
{DIM_SPLIT}

Returns:
    tuple of Tensors: the pieces, views of the tensor.

Example::

    >>> genesis.arange(6).split([1, 5])
    (tensor([0]), tensor([1, 2, 3, 4, 5]))
""",
    "Tensor.chunk": CHUNK,
    "Tensor.tensor_split": TENSOR_SPLIT,
    "Tensor.unbind": UNBIND,
    "Tensor.moveaxis Tensor.movedim": MOVEDIM,
    "Tensor.swapaxes": SWAPAXES,
    "Tensor.swapdims": SWAPDIMS,
    "Tensor.rot90 rot90": """\
Rotates a tensor by 90 degrees ``k`` times in the plane of two dims.

The rotation goes from the first dim towards the second when ``k`` is positive; ``k`` counts
modulo 4, so -1 rotates the other way. The result is a new tensor.

Args:
    input (Tensor): a tensor of at least 2 dims.
    k (int): the number of quarter turns. Default: 1.
    dims (sequence of two ints): the plane of rotation. Default: (0, 1).

Returns:
    Tensor: the rotated tensor.

Example::

    >>> genesis.tensor([[1, 2], [3, 4]]).rot90()
    tensor([[2, 4],
            [1, 3]])
""",
    "Tensor.unfold": """\
Returns the windows of ``size`` items taken every ``step`` items along a dim, as a view.

The dim shrinks to the number of windows, ``(n - size) // step + 1``, and a new last dim of
``size`` holds each window. The result shares memory with the tensor.

Args:
    dimension (int): the dim to slide along.
    size (int): the window length, at most the dim's size.
    step (int): the distance between window starts, positive.

Returns:
    Tensor: a view with one more dim.

Example::

    >>> genesis.arange(7).unfold(0, 3, 2)
    tensor([[0, 1, 2],
            [2, 3, 4],
            [4, 5, 6]])
""",
    "Tensor.unflatten": UNFLATTEN,
    "Tensor.diagonal": DIAGONAL,
    "Tensor.broadcast_to": BROADCAST_TO,
    "broadcast_tensors": """\
Broadcasts tensors to their common shape, as arithmetic between them would.

Args:
    *tensors (Tensor): the tensors.

Returns:
    tuple of Tensors: views of the tensors, all of the broadcast shape.

Example::

    >>> a, b = genesis.broadcast_tensors(genesis.zeros(3, 1), genesis.zeros(4))
    >>> a.shape, b.shape
    (genesis.Size([3, 4]), genesis.Size([3, 4]))
""",
    "flip": f"""\
Reverses the order of elements along the given dimensions.

The result is a new contiguous tensor, as in PyTorch (NumPy's ``flip`` is a view; the view is
``x[::-1]`` here too).

Args:
{INPUT_TENSOR}
    dims (int or sequence of ints): the dimensions to reverse, without repeats.

{RETURNS_NEW}

Example::

    >>> x = genesis.arange(6).view(2, 3)
    >>> genesis.flip(x, (0, 1))
    tensor([[5, 4, 3],
            [2, 1, 0]])
""",
    "Tensor.flip": f"""\
Reverses the order of elements along the given dimensions (a new tensor).

Args:
    *dims (int): the dimensions to reverse, as separate ints or one tuple or list.

{RETURNS_CONTIGUOUS}

Example::

    >>> genesis.arange(4).flip(0)
    tensor([3, 2, 1, 0])
""",
    "Tensor.fliplr": FLIPLR,
    "Tensor.flipud": FLIPUD,
    "Tensor.roll": ROLL,
    "atleast_1d": f"""\
Returns views with at least one dimension: a 0-d tensor becomes shape (1,).

{_TENSORS_ONE_OR_MORE}

Example::

    >>> genesis.atleast_1d(genesis.tensor(5))
    tensor([5])
    >>> [t.shape for t in genesis.atleast_1d(genesis.tensor(1), genesis.zeros(2, 2))]
    [genesis.Size([1]), genesis.Size([2, 2])]
""",
    "atleast_2d": f"""\
Returns views with at least two dimensions: (n,) becomes (1, n) and 0-d becomes (1, 1).

{_TENSORS_ONE_OR_MORE}

Example::

    >>> genesis.atleast_2d(genesis.arange(3)).shape
    genesis.Size([1, 3])
""",
    "atleast_3d": f"""\
Returns views with at least three dimensions, as NumPy: (n,) becomes (1, n, 1).

A 2-d (m, n) tensor becomes (m, n, 1) and a 0-d one (1, 1, 1).

{_TENSORS_ONE_OR_MORE}

Example::

    >>> genesis.atleast_3d(genesis.arange(3)).shape, genesis.atleast_3d(genesis.zeros(2, 3)).shape
    (genesis.Size([1, 3, 1]), genesis.Size([2, 3, 1]))
""",
    "hstack": f"""\
Joins tensors column-wise: along dim 1, or dim 0 when every tensor is 1-d.

0-d tensors count as 1-d. Dtypes promote as in ``cat``.

Args:
{TENSORS}

{RETURNS_NEW}

Example::

    >>> genesis.hstack([genesis.tensor([1, 2]), genesis.tensor([3])])
    tensor([1, 2, 3])
    >>> genesis.hstack([genesis.zeros(2, 1), genesis.ones(2, 2)]).shape
    genesis.Size([2, 3])
""",
    "vstack": _stack(
        "Joins tensors row-wise: along dim 0 of their at-least-2-d views.",
        ">>> genesis.vstack([genesis.tensor([1, 2]), genesis.tensor([3, 4])])",
        "tensor([[1, 2],",
        "        [3, 4]])",
    ),
    "dstack": _stack(
        "Joins tensors depth-wise: along dim 2 of their at-least-3-d views.",
        ">>> genesis.dstack([genesis.tensor([1, 2]), genesis.tensor([3, 4])]).shape",
        "genesis.Size([1, 2, 2])",
    ),
    "column_stack": _stack(
        "Joins tensors as columns: 0-d and 1-d tensors become columns (n, 1), then ``hstack``.",
        ">>> genesis.column_stack([genesis.tensor([1, 2]), genesis.tensor([3, 4])])",
        "tensor([[1, 3],",
        "        [2, 4]])",
    ),
    "Tensor.tril": TRIL,
    "Tensor.triu": TRIU,
    "Tensor.tril_": _triangle_(
        "lower",
        "last",
        "tril",
        ">>> x = genesis.ones(2, 2)",
        ">>> x.tril_() is x",
        "True",
        ">>> x.tolist()",
        "[[1.0, 0.0], [1.0, 1.0]]",
    ),
    "Tensor.triu_": _triangle_(
        "upper",
        "first",
        "triu",
        ">>> x = genesis.ones(2, 2)",
        ">>> x.triu_() is x",
        "True",
        ">>> x.tolist()",
        "[[1.0, 1.0], [0.0, 1.0]]",
    ),
    "tril_indices": _triangle_indices(
        "lower",
        "last",
        "tril",
        ">>> genesis.tril_indices(3, 3)",
        "tensor([[0, 1, 1, 2, 2, 2],",
        "        [0, 0, 1, 0, 1, 2]])",
    ),
    "triu_indices": _triangle_indices(
        "upper",
        "first",
        "triu",
        ">>> genesis.triu_indices(3, 3, 1)",
        "tensor([[0, 0, 1],",
        "        [1, 2, 2]])",
    ),
    "Tensor.diag": DIAG,
    "Tensor.diag_embed": DIAG_EMBED,
    "Tensor.repeat": f"""\
Repeats the tensor ``sizes[d]`` times along each dim d (a new tensor).

``sizes`` may have more entries than the tensor has dims; the tensor is then treated as having
leading dims of size 1. Unlike NumPy's ``repeat`` (``repeat_interleave`` here), whole blocks
repeat.

Args:
    *sizes (int): the repeats per dim, as separate ints or one tuple or list.

{RETURNS_CONTIGUOUS}

Example::

    >>> genesis.tensor([1, 2]).repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
""",
    "Tensor.tile": TILE,
    "Tensor.repeat_interleave": REPEAT_INTERLEAVE,
    "meshgrid": """\
Coordinate grids from 1-d tensors, as views with stride 0 along the other dims.

With ``indexing='ij'`` the i-th grid varies along dim i; with ``'xy'`` (NumPy's default) the
first two dims are swapped, for Cartesian x/y.

Args:
    *tensors (Tensor): 1-d (or 0-d) tensors of one dtype and device, or one sequence of them.
    indexing (str): ``'ij'`` or ``'xy'``. Default: ``'ij'``.

Returns:
    tuple of Tensors: one grid per input, all of one shape.

Example::

    >>> x, y = genesis.meshgrid(genesis.tensor([1, 2, 3]), genesis.tensor([4, 5]))
    >>> x.shape, y.shape
    (genesis.Size([3, 2]), genesis.Size([3, 2]))
    >>> x
    tensor([[1, 1],
            [2, 2],
            [3, 3]])
    >>> genesis.meshgrid(genesis.arange(3), genesis.arange(2), indexing="xy")[0].shape
    genesis.Size([2, 3])
""",
    "expand_copy": f"""\
Returns ``expand(size)`` as a new contiguous tensor instead of a view.

Args:
{INPUT_TENSOR}
    size (sequence of ints): the target shape; -1 keeps a dimension's size.

{RETURNS_NEW}

Example::

    >>> genesis.expand_copy(genesis.tensor([1, 2]), (2, 2)).is_contiguous()
    True
""",
    "broadcast_to": function_form(BROADCAST_TO),
    "chunk": function_form(CHUNK),
    "diag": function_form(DIAG),
    "diag_embed": function_form(DIAG_EMBED),
    "diagonal": function_form(DIAGONAL),
    "fliplr": function_form(FLIPLR),
    "flipud": function_form(FLIPUD),
    "moveaxis": function_form(MOVEDIM),
    "movedim": function_form(MOVEDIM),
    "repeat_interleave": function_form(REPEAT_INTERLEAVE),
    "roll": function_form(ROLL),
    "swapaxes": function_form(SWAPAXES),
    "swapdims": function_form(SWAPDIMS),
    "tensor_split": function_form(TENSOR_SPLIT),
    "tile": function_form(TILE),
    "tril": function_form(TRIL),
    "triu": function_form(TRIU),
    "unbind": function_form(UNBIND),
    "unflatten": function_form(UNFLATTEN),
}

"""Docstrings of indexing (csrc/python/index.cpp): x[key], x[key] = value, genesis.IndexPlan and
genesis.IndexKind.
"""

DOCS = {
    "IndexKind": """\
How an indexing operation runs: the ``kind`` of a ``genesis.IndexPlan``.

``VIEW``: ``x[basic key]`` is a new view (sizes, strides, offset), no copy. ``GATHER``:
``x[advanced key]`` gathers into a new tensor. ``COPY``: ``x[basic key] = tensor`` is one
strided copy into the view. ``SCATTER``: ``x[advanced key] = tensor`` scatters into the indexed
positions. ``FILL``: ``x[any key] = number`` fills the view or the indexed positions.

Example::

    >>> x = genesis.zeros(3, 4)
    >>> x._index_plan(0).kind
    <IndexKind.VIEW: 0>
    >>> x._index_plan([0, 2]).kind == genesis.IndexKind.GATHER
    True
""",
    "IndexKind.VIEW": "x[basic key]: a view, no copy.",
    "IndexKind.GATHER": "x[advanced key]: a gather into a new tensor.",
    "IndexKind.SCATTER": "x[advanced key] = tensor: a scatter into the indexed positions.",
    "IndexKind.COPY": "x[basic key] = tensor: a strided copy into the view.",
    "IndexKind.FILL": "x[key] = number: a fill of the selected elements.",
    "IndexPlan": """\
What ``x[key]`` or ``x[key] = value`` will do, planned without doing it.

Made by ``Tensor._index_plan(key, value=None)``, a debugging aid: its ``kind`` (a
``genesis.IndexKind``) says whether the operation is a view, a gather, a copy, a scatter or a
fill, and its ``path`` (a ``genesis.IndexPath``) how it runs. Index plans cannot be made or run
from Python.

Example::

    >>> x = genesis.arange(24).view(2, 3, 4)
    >>> x._index_plan((slice(None), 1))
    IndexPlan(kind=VIEW, path=VIEW)
    >>> x._index_plan([0], genesis.zeros(3, 4)).kind
    <IndexKind.SCATTER: 2>
""",
    "IndexPlan.kind": """\
The ``genesis.IndexKind`` of the plan: VIEW, GATHER, SCATTER, COPY or FILL.

Example::

    >>> genesis.zeros(4)._index_plan(slice(1, 3), 0.5).kind
    <IndexKind.FILL: 4>
""",
    "IndexPlan.__repr__": "repr(plan): ``IndexPlan(kind=..., path=...)``.",
    "IndexPlan.path": """\
The ``genesis.IndexPath`` of the plan: how the operation runs.

Example::

    >>> genesis.zeros(4)._index_plan(genesis.tensor([True, False, True, True]), 1.0).path
    <IndexPath.MASKED_FILL: 5>
""",
    "IndexPath": """\
How an indexing operation runs: the ``path`` of a ``genesis.IndexPlan``.

The planner chooses the path and the executor runs exactly that one. ``VIEW``: no kernel (the
view itself, or a strided copy or fill into it). ``OFFSETS``: the general advanced path (masks
become coordinates, indices become byte offsets, one gather or scatter kernel). ``ONE_INDEX``:
one integer index tensor on the tensor's GPU is gathered or scattered through directly, its
bounds check fused. ``FIRST_DIM``: ``x[index]`` with one int64 index tensor on x's GPU, along
dim 0. ``MASK_COMPACT``: ``x[mask]`` with one mask over all of a GPU tensor's dims, the values
compacted directly. ``MASKED_FILL``: ``x[mask] = number``, a masked fill that never waits.

Example::

    >>> x = genesis.zeros(3, 4)
    >>> x._index_plan(0).path
    <IndexPath.VIEW: 0>
    >>> x._index_plan([0, 2]).path == genesis.IndexPath.OFFSETS
    True
""",
    "IndexPath.VIEW": "No kernel: the view, or a copy or fill into it.",
    "IndexPath.OFFSETS": "Indices to byte offsets, one gather or scatter kernel.",
    "IndexPath.ONE_INDEX": """\
One index tensor on the tensor's GPU, used directly, bounds check fused.""",
    "IndexPath.FIRST_DIM": """\
x[index]: one int64 index tensor on x's GPU, along dim 0, without walking the key.""",
    "IndexPath.MASK_COMPACT": """\
x[mask] over all of a GPU tensor's dims: the values compacted directly.""",
    "IndexPath.MASKED_FILL": "x[mask] = number: a masked fill, no nonzero, never a wait.",
    "Tensor.__getitem__": """\
x[key]: indexing with NumPy's rules; a view for basic keys, a copy for advanced ones.

Basic keys are made of ints, slices (any step, negative too), ``None``, ``...`` and Python
bools: the result is a view sharing memory with ``x``, and an int removes its dimension (down
to a 0-d tensor: use ``item()`` for the number). Integer or bool tensors, NumPy arrays and lists
in the key are advanced indices: they broadcast together and the result is a copy gathered from
``x``, their dimensions placed as NumPy places them. A bool tensor selects where it is True.
Out-of-range indices are an IndexError; on CUDA, checking index tensors waits for the device
once per unchanged index tensor.

Args:
    key: an index, a slice, None, Ellipsis, a bool, an index tensor, array or list, or a
        tuple of them.

Returns:
    Tensor: a view (basic key) or a new tensor (advanced key).

Example::

    >>> x = genesis.arange(12).view(3, 4)
    >>> x[1]
    tensor([4, 5, 6, 7])
    >>> x[:, ::-2]
    tensor([[ 3,  1],
            [ 7,  5],
            [11,  9]])
    >>> x[[0, 2], 1]
    tensor([1, 9])
    >>> x[x % 5 == 0]
    tensor([ 0,  5, 10])
""",
    "Tensor.__setitem__": """\
x[key] = value: writes into the elements that ``x[key]`` selects, in place.

The key works as in ``x[key]``. A number fills the selected elements; a tensor, list or array
is broadcast to the selected shape, cast to ``x``'s dtype and copied in. A value that overlaps
``x``'s memory is read before anything is written.

Args:
    key: as for ``x[key]``.
    value (Number, Tensor or array-like): what to write.

Example::

    >>> x = genesis.zeros(2, 3, dtype=genesis.int64)
    >>> x[0] = 7
    >>> x[:, [0, 2]] = genesis.tensor([[1, 2], [3, 4]])
    >>> x
    tensor([[1, 7, 2],
            [3, 0, 4]])
""",
    "Tensor._index_plan": """\
Returns the ``genesis.IndexPlan`` that ``x[key]`` (or ``x[key] = value``) makes.

A debugging aid: the plan is made but not run. Its ``kind`` says whether the operation is a
view, a gather, a copy, a scatter or a fill; its ``path`` how it runs.

Args:
    key: as for ``x[key]``.
    value (optional): the value of an assignment; a number plans a fill, anything else a copy
        or scatter. Default: None (plan ``x[key]``).

Returns:
    IndexPlan: the plan.

Example::

    >>> x = genesis.zeros(3, 4)
    >>> x._index_plan(0), x._index_plan(0, 5), x._index_plan([0], genesis.zeros(4))
    (IndexPlan(kind=VIEW, path=VIEW), IndexPlan(kind=FILL, path=VIEW), IndexPlan(kind=SCATTER, path=OFFSETS))
""",
}

"""Docstrings of genesis.cat (concat, concatenate) and genesis.stack (csrc/python/join.cpp)."""

from ._fragments import RETURNS_CONTIGUOUS

DOCS = {
    "cat concat concatenate": f"""\
Joins ``tensors`` along an existing dimension ``dim``.

The tensors must have the same number of dimensions and the same sizes except along ``dim``,
and be on one device; their dtypes are promoted as ``promote_types`` does. As in PyTorch, 1-D
tensors of size 0 are skipped whatever the other shapes, and 0-d tensors are refused (stack
them instead). ``cat``, ``concat`` and ``concatenate`` are the same function.

Args:
    tensors (sequence of Tensors): a list or tuple of tensors (not a tensor).
    dim (int): the dimension to join along; negative values count from the end. Default: 0.

{RETURNS_CONTIGUOUS}

Example::

    >>> a = genesis.arange(6).view(2, 3)
    >>> genesis.cat([a, a]).shape
    genesis.Size([4, 3])
    >>> genesis.cat((a, a[:, :1]), dim=1)
    tensor([[0, 1, 2, 0],
            [3, 4, 5, 3]])
    >>> genesis.concat([a, genesis.ones(1, 3, dtype=genesis.float16)]).dtype
    genesis.float16
""",
    "stack": """\
Joins ``tensors`` of one shape along a new dimension, inserted at ``dim``.

The tensors must have the same shape and be on one device; their dtypes are promoted as
``promote_types`` does. 0-d tensors stack into a 1-D tensor.

Args:
    tensors (sequence of Tensors): a list or tuple of tensors (not a tensor).
    dim (int): where the new dimension goes, from ``-(ndim + 1)`` to ``ndim``. Default: 0.

Returns:
    Tensor: a new contiguous tensor with one more dimension.

Example::

    >>> a = genesis.tensor([1, 2, 3])
    >>> genesis.stack([a, a * 10])
    tensor([[ 1,  2,  3],
            [10, 20, 30]])
    >>> genesis.stack([a, a], dim=-1).shape
    genesis.Size([3, 2])
    >>> genesis.stack([genesis.tensor(1), genesis.tensor(2.5)])
    tensor([1.0000, 2.5000])
""",
}

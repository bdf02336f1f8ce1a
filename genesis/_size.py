"""genesis.Size: the type of ``Tensor.shape`` and ``Tensor.size()``, as ``torch.Size``."""

import math
import operator
from typing import TYPE_CHECKING, SupportsIndex, overload

from ._C import _SizeBase


class Size(_SizeBase):
    """A tensor's shape: a tuple of ints that also knows its number of elements.

    ``Tensor.shape`` and ``Tensor.size()`` return one. It is a ``tuple`` (it compares equal to
    one, indexes, unpacks and hashes as one), and slicing, ``+`` and ``*`` keep the type.

    Args:
        sizes (iterable of int): the sizes of the dims.

    Example::

        >>> s = genesis.zeros(2, 3).shape
        >>> s, s.numel(), s[1:], s == (2, 3)
        (genesis.Size([2, 3]), 6, genesis.Size([3]), True)
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        try:
            items = [operator.index(s) for s in sizes]
        except TypeError:
            raise TypeError(
                f"[Size] expected a sequence of ints, got {type(sizes).__name__} {sizes!r}"
            ) from None
        return super().__new__(cls, items)

    def numel(self) -> int:
        """Returns the number of elements a tensor of this shape holds (1 for ``Size([])``).

        Returns:
            int: the product of the sizes.

        Example::

            >>> genesis.Size([2, 3, 4]).numel()
            24
        """
        return math.prod(self)

    def __repr__(self):
        return f"genesis.Size({list(self)!r})"

    if TYPE_CHECKING:  # _SizeBase's subscript, in C (Note [Size indexing in C])

        @overload
        def __getitem__(self, index: SupportsIndex) -> int: ...
        @overload
        def __getitem__(self, index: slice) -> "Size": ...
        def __getitem__(self, index): ...

    def __eq__(self, other: object) -> bool:  # tuple's; declared so that == does not narrow
        return tuple.__eq__(self, other)

    __hash__ = tuple.__hash__

    def __add__(self, other):  # type: ignore[override]
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times):  # type: ignore[override]
        return Size(tuple(self) * times)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))

"""Flatten and Unflatten."""

from __future__ import annotations

from typing import Any

from ..._C import Tensor
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dims ``start_dim`` to ``end_dim`` into one (by default all but the batch dim).

    Example::

        >>> genesis.nn.Flatten()(genesis.zeros(2, 3, 4)).shape
        genesis.Size([2, 12])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size`` (a tuple of ints, one may be -1).

    Example::

        >>> genesis.nn.Unflatten(1, (3, 4))(genesis.zeros(2, 12)).shape
        genesis.Size([2, 3, 4])
    """

    def __init__(self, dim: int | str, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(dim, str):
            raise TypeError("[Unflatten] named dimensions are not supported; give dim as an int")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in unflattened_size
        ):
            raise TypeError(
                "unflattened_size must be tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"

"""Argument helpers the layers share, with the names of PyTorch's ``torch.nn.modules.utils``
(``_single``, ``_pair``, ``_triple``, ``_quadruple``, ``_ntuple``), which some model code
imports directly.

Example::

    >>> from genesis.nn.modules.utils import _pair
    >>> _pair(3), _pair((1, 2))
    ((3, 3), (1, 2))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__: list[str] = []  # private helpers; no layers here


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A function that returns a tuple or list argument as a tuple and repeats anything else
    ``n`` times."""

    def parse(value: Any) -> tuple:
        if isinstance(value, (tuple, list)):
            return tuple(value)
        return (value,) * n

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")

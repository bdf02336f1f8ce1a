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


def consume_prefix_in_state_dict_if_present(state_dict: Any, prefix: str) -> None:
    """Strips ``prefix`` from the keys of a state dict that start with it, in place, as torch's.

    A DistributedDataParallel model's ``state_dict()`` names the model's entries
    ``module.<name>``; stripping ``"module."`` makes it load into the plain model (and its
    ``_metadata``, if any, is renamed the same way).

    Args:
        state_dict (OrderedDict): the state dict to change.
        prefix (str): the prefix, such as ``"module."``.

    Returns:
        None

    Example::

        >>> from collections import OrderedDict
        >>> sd = OrderedDict([("module.weight", 1), ("module.bias", 2)])
        >>> consume_prefix_in_state_dict_if_present(sd, "module.")
        >>> list(sd)
        ['weight', 'bias']
    """
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                metadata[key[len(prefix) :]] = metadata.pop(key)
